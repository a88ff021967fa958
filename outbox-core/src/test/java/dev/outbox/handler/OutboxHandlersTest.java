package dev.outbox.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.PayloadDeserializer;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.processing.ProcessingOptions;
import dev.outbox.publish.PublisherRegistration;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.InstanceCapabilities;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Typed handlers on the in-memory store: fan-out, independent state per handler, retry policies and fallbacks. */
class OutboxHandlersTest {

    /** The test's event; its payload is written as {@code {orderId}}. */
    record OrderPlaced(String orderId) {
    }

    static final PayloadDeserializer READER = (payload, type) -> {
        if (type != OrderPlaced.class) {
            throw new IllegalArgumentException("unexpected type " + type);
        }
        if (!payload.startsWith("{") || !payload.endsWith("}")) {
            throw new IllegalArgumentException("not an object: " + payload);
        }
        return new OrderPlaced(payload.substring(1, payload.length() - 1));
    };

    private final MutableClock clock = MutableClock.startingNow();
    private final InMemoryRecordStore store = new InMemoryRecordStore();
    private final List<String> calls = new CopyOnWriteArrayList<>();
    private OutboxProcessor processor;

    @AfterEach
    void close() {
        if (processor != null) {
            processor.close();
        }
    }

    @Test
    void savingAnEventStoresOneRecordPerSubscribedHandlerEachWithItsOwnId() {
        OutboxHandlers handlers = OutboxHandlers.builder().deserializer(READER)
                .handler(recording("mailer")).handler(recording("ledger")).build();
        OutboxRecordRepository repository = handlers.fanningOut(store);

        OutboxRecord given = record("A", "{1}");
        OutboxRecord saved = repository.save(given);
        repository.save(OutboxRecord.builder().aggregateId("A").eventType("Unsubscribed").payload("x").build(clock));
        repository.save(OutboxRecord.builder().aggregateId("A").eventType("OrderPlaced").payload("{2}")
                .handlerId("ledger").build(clock));

        assertThat(saved.getId()).isEqualTo(given.getId());
        assertThat(saved.getHandlerId()).isEqualTo("mailer");
        List<OutboxRecord> rows = store.all();
        assertThat(rows).extracting(OutboxRecord::getHandlerId)
                .containsExactly("mailer", "ledger", null, "ledger");
        assertThat(rows).extracting(OutboxRecord::getId).doesNotHaveDuplicates();
        assertThat(rows.get(1).getPayload()).isEqualTo("{1}");
        assertThat(rows.get(1).getCreatedAt()).isEqualTo(given.getCreatedAt());
        assertThat(handlers.handlerIdsFor("OrderPlaced")).containsExactly("mailer", "ledger");
    }

    @Test
    void narrowedHandlersAddressRecordsOnlyToTheHandlersAndPublishersKeptInTheirOrder() {
        OutboxRecordProcessor processor = record -> calls.add("processor:" + record.getPayload());
        OutboxHandlers all = OutboxHandlers.builder().deserializer(READER).recordProcessor(processor)
                .handler(recording("mailer")).handler(recording("ledger")).handler(recording("audit"))
                .publisher(PublisherRegistration.of("kafka", record -> CompletableFuture.completedFuture(null))).build();

        OutboxHandlers narrowed = all.only(List.of("audit", "kafka", "mailer"));

        assertThat(narrowed.handlerIds()).containsExactlyInAnyOrder("mailer", "audit", "kafka");
        assertThat(narrowed.handlerIdsFor("OrderPlaced")).containsExactly("mailer", "audit", "kafka");
        assertThat(narrowed.capabilities().recordProcessor()).isTrue();
        OutboxRecordRepository repository = narrowed.fanningOut(store);
        repository.save(record("A", "{1}"));
        assertThat(store.all()).extracting(OutboxRecord::getHandlerId).containsExactly("mailer", "audit", "kafka");
        assertThat(narrowed.routeFor(only("mailer")).notDeployed()).isNull();
        OutboxRecord toLedger = record("B", "{2}").withHandlerId("ledger");
        assertThat(all.routeFor(toLedger).notDeployed()).isNull();
        assertThat(narrowed.routeFor(toLedger).notDeployed()).contains("handler 'ledger'");
        assertThat(all.only(List.of()).handlerIds()).isEmpty();
    }

    @Test
    void narrowingToAnIdThatIsNeitherAHandlerNorAPublisherNamesIt() {
        OutboxHandlers all = OutboxHandlers.builder().deserializer(READER).handler(recording("mailer")).build();

        assertThatThrownBy(() -> all.only(List.of("mailer", "ledgr")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no handler or publisher has the id(s) [ledgr]; the ids are [mailer]");
    }

    @Test
    void aFailingHandlerNeitherBlocksNorReRunsAnotherHandlerOfTheSameEvents() {
        AtomicInteger ledgerFailures = new AtomicInteger();
        OutboxHandlers handlers = OutboxHandlers.builder().deserializer(READER)
                .handler(recording("mailer"))
                .handler(HandlerRegistration.builder("ledger", OrderPlaced.class).handler((event, metadata) -> {
                    calls.add("ledger:" + event.orderId() + "#" + metadata.getAttempt());
                    if (event.orderId().equals("1") && ledgerFailures.incrementAndGet() <= 2) {
                        throw new IllegalStateException("ledger down");
                    }
                }).build())
                .build();
        Outbox outbox = outbox(handlers);
        outbox.schedule(new OrderPlaced("1"), "A");
        outbox.schedule(new OrderPlaced("2"), "A");
        outbox.schedule(new OrderPlaced("3"), "A");
        processor = processor(handlers, 3);

        processor.processDueRecords();
        assertThat(calls).as("mailer goes on while ledger's first record waits for its retry")
                .filteredOn(call -> call.startsWith("mailer")).containsExactly("mailer:1#1", "mailer:2#1", "mailer:3#1");
        assertThat(calls).filteredOn(call -> call.startsWith("ledger")).containsExactly("ledger:1#1");

        for (int retry = 0; retry < 3; retry++) {
            clock.advance(Duration.ofMinutes(5));
            processor.processDueRecords();
        }

        assertThat(calls).as("ledger retried its own record only, then went on in order")
                .filteredOn(call -> call.startsWith("ledger"))
                .containsExactly("ledger:1#1", "ledger:1#2", "ledger:1#3", "ledger:2#1", "ledger:3#1");
        assertThat(calls).as("mailer was not re-run by ledger's retries").filteredOn(call -> call.startsWith("mailer"))
                .hasSize(3);
        assertThat(store.all()).extracting(OutboxRecord::getStatus).containsOnly(OutboxRecordStatus.COMPLETED)
                .hasSize(6);
    }

    @Test
    void aHandlerRetryPolicyBoundsItsOwnRecordsOnly() {
        OutboxHandlers handlers = OutboxHandlers.builder().deserializer(READER)
                .handler(HandlerRegistration.builder("impatient", OrderPlaced.class)
                        .retryPolicy(OutboxRetryPolicy.fixed(Duration.ofSeconds(10)).withMaxRetries(1))
                        .handler((event, metadata) -> failing("impatient", event)).build())
                .handler(HandlerRegistration.builder("patient", OrderPlaced.class)
                        .handler((event, metadata) -> failing("patient", event)).build())
                .build();
        outbox(handlers).schedule(new OrderPlaced("1"), "A");
        processor = processor(handlers, 3);

        processor.processDueRecords();
        OutboxRecord impatient = only("impatient");
        assertThat(impatient.getNextRetryAt()).as("the handler's own delay").isEqualTo(clock.instant().plusSeconds(10));
        for (int round = 0; round < 10; round++) {
            clock.advance(Duration.ofMinutes(10));
            processor.processDueRecords();
        }

        assertThat(only("impatient").getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(only("patient").getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(calls).filteredOn("impatient:1"::equals).as("1 attempt + 1 retry").hasSize(2);
        assertThat(calls).filteredOn("patient:1"::equals).as("1 attempt + max-retries 3").hasSize(4);
    }

    @Test
    void aFallbackTakesARecordThatFailedForGoodAndItsAggregateGoesOn() {
        List<String> recovered = new CopyOnWriteArrayList<>();
        OutboxHandlers handlers = OutboxHandlers.builder().deserializer(READER)
                .handler(HandlerRegistration.builder("mailer", OrderPlaced.class)
                        .retryPolicy(OutboxRetryPolicy.fixed(Duration.ZERO).withMaxRetries(2))
                        .fallback((record, failure) -> recovered.add(record.getPayload() + " after "
                                + (record.getRetryCount() + 1) + ": " + failure.getMessage()))
                        .handler((event, metadata) -> {
                            calls.add(event.orderId());
                            if (event.orderId().equals("1")) {
                                throw new IllegalStateException("smtp refused");
                            }
                        }).build())
                .build();
        Outbox outbox = outbox(handlers);
        OutboxRecord first = outbox.schedule(new OrderPlaced("1"), "A");
        outbox.schedule(new OrderPlaced("2"), "A");
        processor = processor(handlers, OutboxRetryPolicy.DEFAULT_MAX_RETRIES);

        for (int round = 0; round < 4; round++) {
            processor.processDueRecords();
        }

        assertThat(recovered).containsExactly("{1} after 3: smtp refused");
        assertThat(store.findById(first.getId()).orElseThrow().getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(calls).containsExactly("1", "1", "1", "2");
    }

    @Test
    void aFallbackThatFailsLeavesTheRecordFailedWithBothErrors() {
        OutboxHandlers handlers = OutboxHandlers.builder().deserializer(READER)
                .handler(HandlerRegistration.builder("mailer", OrderPlaced.class)
                        .retryPolicy(OutboxRetryPolicy.fixed(Duration.ZERO).withMaxRetries(0))
                        .fallback((record, failure) -> {
                            throw new IllegalStateException("dead-letter table is gone");
                        })
                        .handler((event, metadata) -> {
                            throw new IllegalStateException("smtp refused");
                        }).build())
                .build();
        OutboxRecord record = outbox(handlers).schedule(new OrderPlaced("1"), "A");
        processor = processor(handlers, OutboxRetryPolicy.DEFAULT_MAX_RETRIES);

        processor.processDueRecords();

        OutboxRecord stored = store.findById(record.getId()).orElseThrow();
        assertThat(stored.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(stored.getLastError()).contains("smtp refused").contains("the fallback failed too")
                .contains("dead-letter table is gone");
    }

    @Test
    void aPayloadThatCannotBeReadFailsOnceWithAClearError() {
        OutboxHandlers handlers = OutboxHandlers.builder().deserializer(READER).handler(recording("mailer")).build();
        OutboxRecord record = handlers.fanningOut(store).save(record("A", "not json"));
        processor = processor(handlers, 5);

        processor.processDueRecords();
        clock.advance(Duration.ofHours(1));
        processor.processDueRecords();

        OutboxRecord stored = store.findById(record.getId()).orElseThrow();
        assertThat(stored.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(stored.getRetryCount()).as("no retries").isZero();
        assertThat(stored.getLastError()).contains("cannot be read as " + OrderPlaced.class.getName())
                .contains("handler 'mailer'").contains("not an object: not json");
        assertThat(calls).isEmpty();
    }

    @Test
    void recordsOfAHandlerThisInstanceLacksAreDeferredInOrderAndTakenByAnInstanceThatHasIt() {
        OutboxHandlers v1 = OutboxHandlers.builder().deserializer(READER).handler(recording("mailer")).build();
        OutboxHandlers v2 = OutboxHandlers.builder().deserializer(READER).handler(recording("mailer"))
                .handler(recording("ledger")).build();
        OutboxRecordRepository v2Writer = v2.fanningOut(store);
        OutboxRecord first = v2Writer.save(record("A", "{1}"));
        OutboxRecord second = v2Writer.save(record("A", "{2}"));
        OutboxRecord firstForLedger = only("ledger");
        processor = processor(v1, Duration.ofHours(1));

        processor.processDueRecords();

        assertThat(calls).as("v1's own handler runs; the ledger's records wait")
                .containsExactly("mailer:1#1", "mailer:2#1");
        OutboxRecord deferred = store.findById(firstForLedger.getId()).orElseThrow();
        assertThat(deferred.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(deferred.getRetryCount()).as("no attempt used").isZero();
        assertThat(deferred.getNextRetryAt()).isEqualTo(clock.instant().plusSeconds(5));
        assertThat(deferred.getLastError()).startsWith("dev.outbox.processing.HandlerNotDeployedException: record "
                + firstForLedger.getId() + " of event type 'OrderPlaced' is addressed to handler 'ledger', which "
                + "this instance does not have (its handlers: [mailer])");
        OutboxRecord behind = store.all().stream().filter(r -> "ledger".equals(r.getHandlerId())
                && !r.getId().equals(firstForLedger.getId())).findFirst().orElseThrow();
        assertThat(behind.getLastError()).as("the lane's next record was not looked at").isNull();

        clock.advance(Duration.ofSeconds(4));
        assertThat(processor.processDueRecords()).as("not before the deferral interval").isZero();
        clock.advance(Duration.ofSeconds(1));
        processor.processDueRecords();
        assertThat(store.findById(firstForLedger.getId()).orElseThrow().getRetryCount()).isZero();
        processor.close();

        processor = processor(v2, Duration.ofHours(1));
        clock.advance(Duration.ofSeconds(5));
        processor.processDueRecords();

        assertThat(calls).as("the ledger's records in order, first attempt each")
                .containsExactly("mailer:1#1", "mailer:2#1", "ledger:1#1", "ledger:2#1");
        assertThat(store.all()).extracting(OutboxRecord::getStatus).containsOnly(OutboxRecordStatus.COMPLETED);
        assertThat(List.of(first, second)).extracting(OutboxRecord::getHandlerId).containsOnly("mailer");
    }

    @Test
    void aDeferredRecordFailsOnceOlderThanTheMaxDeferralNamingTheHandlerAndTheProperty() {
        OutboxHandlers handlers = OutboxHandlers.builder().deserializer(READER).handler(recording("mailer")).build();
        OutboxRecord orphan = store.save(OutboxRecord.builder().aggregateId("A").eventType("OrderPlaced")
                .payload("{1}").handlerId("order-mailer-v1").build(clock));
        store.save(OutboxRecord.builder().aggregateId("A").eventType("OrderPlaced").payload("{2}")
                .handlerId("order-mailer-v1").build(clock));
        processor = processor(handlers, Duration.ofMinutes(10));

        processor.processDueRecords();
        clock.advance(Duration.ofMinutes(10).minusSeconds(1));
        processor.processDueRecords();
        assertThat(store.findById(orphan.getId()).orElseThrow().getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        clock.advance(Duration.ofSeconds(5)); // due again, and 10 min 4 s old
        processor.processDueRecords();

        OutboxRecord stored = store.findById(orphan.getId()).orElseThrow();
        assertThat(stored.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(stored.getRetryCount()).isZero();
        assertThat(stored.getLastError()).contains("handler 'order-mailer-v1'").contains("[mailer]")
                .contains("waited PT10M (outbox.processing.max-deferral)").contains("renamed or removed");
        assertThat(store.all()).extracting(OutboxRecord::getStatus).as("the next record waits behind the failure")
                .containsExactly(OutboxRecordStatus.FAILED, OutboxRecordStatus.NEW);
        assertThat(calls).isEmpty();
    }

    @Test
    void aRecordCreatedLongBeforeItsFirstDeferralWaitsTheMaxDeferralFromThatDeferralNotFromItsCreation() {
        OutboxHandlers handlers = OutboxHandlers.builder().deserializer(READER).handler(recording("mailer")).build();
        Instant created = clock.instant();
        // Written 30 days ago (scheduled ahead, or waiting for an operator): older than the max-deferral of a day.
        OutboxRecord old = store.save(OutboxRecord.builder().aggregateId("A").eventType("OrderPlaced")
                .payload("{1}").handlerId("order-mailer-v2").build(clock));
        clock.advance(Duration.ofDays(30));
        Instant firstDeferral = clock.instant();
        processor = processor(handlers, Duration.ofDays(1));

        processor.processDueRecords();

        OutboxRecord deferred = store.findById(old.getId()).orElseThrow();
        assertThat(deferred.getStatus()).as("deferred, not failed at its first deferral")
                .isEqualTo(OutboxRecordStatus.NEW);
        assertThat(deferred.getCreatedAt()).isEqualTo(created);
        assertThat(deferred.getFirstDeferredAt()).isEqualTo(firstDeferral);
        assertThat(deferred.getNextRetryAt()).isEqualTo(firstDeferral.plusSeconds(5));

        clock.advance(Duration.ofDays(1).minusSeconds(1));
        processor.processDueRecords();
        OutboxRecord waiting = store.findById(old.getId()).orElseThrow();
        assertThat(waiting.getStatus()).as("a second short of a day since its first deferral")
                .isEqualTo(OutboxRecordStatus.NEW);
        assertThat(waiting.getFirstDeferredAt()).as("later deferrals keep the first").isEqualTo(firstDeferral);

        clock.advance(Duration.ofSeconds(5)); // the next look, every deferral interval
        processor.processDueRecords();
        OutboxRecord failed = store.findById(old.getId()).orElseThrow();
        assertThat(failed.getStatus()).as("past a day since its first deferral").isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(failed.getRetryCount()).isZero();
        assertThat(failed.getLastError()).contains("waited PT24H (outbox.processing.max-deferral) since its first "
                + "deferral at " + firstDeferral);
        assertThat(calls).isEmpty();
    }

    @Test
    void anOperatorsRetryOfARecordThatWaitedTooLongStartsAFreshDeferral() {
        OutboxHandlers handlers = OutboxHandlers.builder().deserializer(READER).handler(recording("mailer")).build();
        OutboxRecord orphan = store.save(OutboxRecord.builder().aggregateId("A").eventType("OrderPlaced")
                .payload("{1}").handlerId("order-mailer-v2").build(clock));
        processor = processor(handlers, Duration.ofMinutes(10));
        processor.processDueRecords();
        clock.advance(Duration.ofMinutes(10));
        processor.processDueRecords();
        assertThat(store.findById(orphan.getId()).orElseThrow().getStatus()).isEqualTo(OutboxRecordStatus.FAILED);

        clock.advance(Duration.ofHours(1));
        assertThat(store.retryFailed(orphan.getId(), clock.instant())).isTrue();
        assertThat(store.findById(orphan.getId()).orElseThrow().getFirstDeferredAt()).as("cleared by the retry")
                .isNull();
        Instant retried = clock.instant();
        processor.processDueRecords();

        OutboxRecord again = store.findById(orphan.getId()).orElseThrow();
        assertThat(again.getStatus()).as("deferred again, not failed at once").isEqualTo(OutboxRecordStatus.NEW);
        assertThat(again.getFirstDeferredAt()).isEqualTo(retried);
        clock.advance(Duration.ofMinutes(10).minusSeconds(1));
        processor.processDueRecords();
        assertThat(store.findById(orphan.getId()).orElseThrow().getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        clock.advance(Duration.ofSeconds(5));
        processor.processDueRecords();
        assertThat(store.findById(orphan.getId()).orElseThrow().getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
    }

    @Test
    void recordsAddressedToNoHandlerGoToTheRecordProcessorOrWaitForAnInstanceWithOne() {
        OutboxHandlers withProcessor = OutboxHandlers.builder().deserializer(READER).handler(recording("mailer"))
                .recordProcessor(record -> calls.add("processor:" + record.getEventType())).build();
        OutboxRecord legacy = store.save(OutboxRecord.builder().aggregateId("A").eventType("Legacy").payload("x")
                .build(clock));
        processor = processor(withProcessor, OutboxRetryPolicy.DEFAULT_MAX_RETRIES);
        processor.processDueRecords();
        assertThat(calls).containsExactly("processor:Legacy");
        assertThat(store.findById(legacy.getId()).orElseThrow().getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        processor.close();

        OutboxHandlers handlersOnly = OutboxHandlers.builder().deserializer(READER).handler(recording("mailer"))
                .build();
        OutboxRecord unaddressed = store.save(record("B", "{1}"));
        processor = processor(handlersOnly, Duration.ofHours(1));
        processor.processDueRecords();

        OutboxRecord stored = store.findById(unaddressed.getId()).orElseThrow();
        assertThat(stored.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(stored.getLastError()).contains("addressed to no handler, and this instance has no "
                + "OutboxRecordProcessor").contains("handlers [mailer] subscribe to the type now");
        processor.close();

        processor = processor(withProcessor, OutboxRetryPolicy.DEFAULT_MAX_RETRIES);
        clock.advance(Duration.ofSeconds(5));
        processor.processDueRecords();
        assertThat(calls).containsExactly("processor:Legacy", "processor:OrderPlaced");
    }

    @Test
    void aRecordOfAHandlerThatHandlesAnotherEventTypeNowFailsAtOnce() {
        OutboxHandlers handlers = OutboxHandlers.builder().deserializer(READER).handler(recording("mailer")).build();
        OutboxRecord renamed = store.save(OutboxRecord.builder().aggregateId("A").eventType("OrderShipped")
                .payload("{1}").handlerId("mailer").build(clock));
        processor = processor(handlers, Duration.ofHours(1));

        processor.processDueRecords();

        OutboxRecord stored = store.findById(renamed.getId()).orElseThrow();
        assertThat(stored.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(stored.getLastError()).contains("is addressed to handler 'mailer', which handles 'OrderPlaced' now");
    }

    @Test
    void theCapabilitiesAreTheHandlerIdsTheirEventTypesAndWhetherARecordProcessorTakesTheRest() {
        OutboxHandlers handlers = OutboxHandlers.builder().deserializer(READER).handler(recording("mailer"))
                .handler(recording("ledger")).build();
        assertThat(handlers.capabilities()).isEqualTo(new InstanceCapabilities(Set.of("ledger", "mailer"),
                Set.of("OrderPlaced"), false, null));
        assertThat(OutboxHandlers.builder().recordProcessor(record -> { }).build().capabilities())
                .isEqualTo(new InstanceCapabilities(Set.of(), Set.of(), true, null));
    }

    @Test
    void theHandlerReceivesTheRecordsMetadata() {
        List<RecordMetadata> seen = new CopyOnWriteArrayList<>();
        OutboxHandlers handlers = OutboxHandlers.builder().deserializer(READER)
                .handler(HandlerRegistration.of("mailer", OrderPlaced.class, (event, metadata) -> seen.add(metadata)))
                .build();
        OutboxRecord record = outbox(handlers).schedule(new OrderPlaced("1"), "A");
        processor = processor(handlers, OutboxRetryPolicy.DEFAULT_MAX_RETRIES);

        processor.processDueRecords();

        RecordMetadata metadata = seen.get(0);
        assertThat(metadata.getId()).isEqualTo(record.getId());
        assertThat(metadata.getAggregateId()).isEqualTo("A");
        assertThat(metadata.getEventType()).isEqualTo("OrderPlaced");
        assertThat(metadata.getHandlerId()).isEqualTo("mailer");
        assertThat(metadata.getAttempt()).isEqualTo(1);
        assertThat(metadata.getPartition()).isEqualTo(record.getPartition());
        assertThat(metadata.getSequence()).isNotNull();
        assertThat(metadata.getCreatedAt()).isEqualTo(record.getCreatedAt());
        assertThat(metadata.getEpoch()).isZero();
    }

    @Test
    void registrationMistakesAreRefusedNamingTheProblem() {
        assertThatThrownBy(() -> OutboxHandlers.builder().deserializer(READER).handler(recording("mailer"))
                .handler(recording("mailer"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("handler id 'mailer' is registered twice");
        assertThatThrownBy(() -> OutboxHandlers.builder().handler(recording("mailer")).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("deserializer is required");
        assertThatThrownBy(() -> HandlerRegistration.builder("order mailer", OrderPlaced.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("handler id 'order mailer' may contain only letters, digits, '.', '_', ':' and '-'");
        assertThatThrownBy(() -> HandlerRegistration.builder("x".repeat(256), OrderPlaced.class))
                .hasMessage("handler id is 256 characters long; the limit is 255 characters");
        assertThatThrownBy(() -> HandlerRegistration.builder("mailer", OrderPlaced.class).build())
                .hasMessage("handler 'mailer': handler(...) is required");
        assertThatThrownBy(() -> OutboxRetryPolicy.fixed(Duration.ZERO).withMaxRetries(-1))
                .hasMessage("maxRetries must be >= 0 but was -1");
    }

    private void failing(String handler, OrderPlaced event) {
        calls.add(handler + ":" + event.orderId());
        throw new IllegalStateException(handler + " fails");
    }

    private OutboxRecord only(String handlerId) {
        return store.all().stream().filter(r -> handlerId.equals(r.getHandlerId())).findFirst().orElseThrow();
    }

    private HandlerRegistration<OrderPlaced> recording(String id) {
        return HandlerRegistration.of(id, OrderPlaced.class,
                (event, metadata) -> calls.add(id + ":" + event.orderId() + "#" + metadata.getAttempt()));
    }

    private Outbox outbox(OutboxHandlers handlers) {
        return Outbox.builder().repository(handlers.fanningOut(store)).clock(clock)
                .serializer(event -> "{" + ((OrderPlaced) event).orderId() + "}").build();
    }

    private OutboxRecord record(String aggregateId, String payload) {
        return OutboxRecord.builder().aggregateId(aggregateId).eventType("OrderPlaced").payload(payload).build(clock);
    }

    /** Records no handler takes wait 5 s between looks, at most {@code maxDeferral}. */
    private OutboxProcessor processor(OutboxHandlers handlers, Duration maxDeferral) {
        return OutboxProcessor.builder().recordStore(store).routes(handlers).clock(clock)
                .options(ProcessingOptions.defaults().withMaxDeferral(maxDeferral)
                        .withDeferralInterval(Duration.ofSeconds(5))).build();
    }

    /** The default policy: a minute between retries, at most {@code maxRetries}. */
    private OutboxProcessor processor(OutboxHandlers handlers, int maxRetries) {
        return OutboxProcessor.builder().recordStore(store).routes(handlers).clock(clock)
                .retryPolicy(OutboxRetryPolicy.fixed(Duration.ofMinutes(1)).withMaxRetries(maxRetries)).build();
    }
}
