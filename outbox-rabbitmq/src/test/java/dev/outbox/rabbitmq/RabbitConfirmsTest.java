package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.publish.PublishException;
import dev.outbox.publish.PublishException.Reason;
import dev.outbox.testkit.TcpProxy;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;

/**
 * The publisher's own confirm tracking against a real RabbitMQ server: many messages in flight (the broker acks them
 * in multiples), returns among acks, a channel the broker closes, a connection that breaks, threads that flush to
 * one exchange at once. Every publish future completes, once, with the outcome of its own message.
 */
class RabbitConfirmsTest extends RabbitPublisherFixture {

    private static final Duration DEADLINE = Duration.ofSeconds(120);

    @Test
    void thousandsInFlightAreEachSettledOnceAndArriveInOrder() throws Exception {
        String exchange = broker.declareExchange("in-flight");
        String queue = broker.declareQueue(exchange, "#");
        try (RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(connection)
                .router(record -> RabbitDestination.of(exchange, "order")).build()) {
            List<OutboxRecord> records = records(5_000, "OrderPlaced");
            AtomicInteger completions = new AtomicInteger();
            List<CompletableFuture<?>> confirms = new ArrayList<>();
            for (int n = 0; n < records.size(); n++) {
                CompletableFuture<?> confirmed = publisher.publish(records.get(n)).toCompletableFuture();
                confirmed.whenComplete((value, failure) -> completions.incrementAndGet());
                confirms.add(confirmed);
                if (n % 500 == 499) {
                    publisher.flush(); // the bursts follow each other without waiting: thousands unconfirmed
                }
            }
            allOf(confirms);
            assertThat(confirms).allSatisfy(confirmed -> assertThat(confirmed).isCompleted());
            assertThat(completions).hasValue(5_000);
            assertThat(broker.takeAll(queue)).map(message -> message.getMessageProperties().getMessageId())
                    .containsExactlyElementsOf(records.stream().map(OutboxRecord::getId).toList());
        }
    }

    @Test
    void aReturnedMessageFailsAsUnroutableWhileTheOthersOnItsChannelAreConfirmed() {
        String exchange = broker.declareExchange("returns");
        String queue = broker.declareQueue(exchange, "order.*");
        try (RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(connection)
                .router(record -> RabbitDestination.of(exchange, record.getEventType())).build()) {
            List<OutboxRecord> records = new ArrayList<>();
            for (int n = 0; n < 200; n++) {
                records.add(record("agg-" + n, n % 10 == 3 ? "nobody.listens" : "order.placed"));
            }
            Map<OutboxRecord, CompletableFuture<?>> confirms = publishAll(publisher, records);
            publisher.flush();
            allOf(confirms.values());

            confirms.forEach((record, confirmed) -> {
                if (record.getEventType().equals("nobody.listens")) {
                    assertThat(reasonOf(confirmed)).isEqualTo(Reason.UNROUTABLE);
                } else {
                    assertThat(confirmed).isCompleted();
                }
            });
            assertThat(broker.takeAll(queue)).hasSize(180);
        }
    }

    @Test
    void aMissingExchangeFailsOnlyItsOwnRecordsAndItsChannelOpensAgainForTheNextFlush() {
        String good = broker.declareExchange("good");
        String goodQueue = broker.declareQueue(good, "#");
        String missing = RabbitTestBroker.unique("missing");
        try (RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(connection)
                .router(record -> RabbitDestination.of(record.getEventType().equals("Missing") ? missing : good,
                        "order")).build()) {
            List<OutboxRecord> burst = new ArrayList<>();
            for (int n = 0; n < 100; n++) {
                burst.add(record("agg-" + n, n % 4 == 0 ? "Missing" : "Good"));
            }
            Map<OutboxRecord, CompletableFuture<?>> confirms = publishAll(publisher, burst);
            publisher.flush();
            allOf(confirms.values());
            confirms.forEach((record, confirmed) -> {
                if (record.getEventType().equals("Missing")) {
                    PublishException failure = failureOf(confirmed);
                    assertThat(failure.reason()).isEqualTo(Reason.DESTINATION_NOT_FOUND);
                    assertThat(failure.getMessage()).contains("NOT_FOUND - no exchange '" + missing + "'");
                } else {
                    assertThat(confirmed).isCompleted();
                }
            });

            // the next burst: the exchange exists now, and its closed channel is replaced
            broker.declareExchangeNamed(missing);
            String lateQueue = broker.declareQueue(missing, "#");
            List<OutboxRecord> next = List.of(record("late-1", "Missing"), record("late-2", "Good"),
                    record("late-3", "Missing"));
            Map<OutboxRecord, CompletableFuture<?>> nextConfirms = publishAll(publisher, next);
            publisher.flush();
            allOf(nextConfirms.values());
            assertThat(nextConfirms.values()).allSatisfy(confirmed -> assertThat(confirmed).isCompleted());
            assertThat(broker.takeAll(lateQueue)).hasSize(2);
        }
        assertThat(broker.takeAll(goodQueue)).hasSize(76);
    }

    @Test
    void aBrokenConnectionFailsWhatIsInFlightAsConnectionAndLaterPublishesGoThrough() throws Exception {
        String exchange = broker.declareExchange("broken");
        String queue = broker.declareQueue(exchange, "#");
        try (TcpProxy proxy = TcpProxy.to(broker.host(), broker.port())) {
            CachingConnectionFactory viaProxy = broker.publisherConnection(proxy.port());
            try (RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(viaProxy)
                    .router(record -> RabbitDestination.of(exchange, "order")).build()) {
                confirmAll(publisher, records(10, "Before")); // the channel is open: the cut meets it in use

                List<CompletableFuture<?>> inFlight = new ArrayList<>(
                        publishAll(publisher, records(2_000, "During")).values());
                publisher.flush();
                proxy.cutFor(Duration.ofSeconds(2));
                allOf(inFlight);
                long failed = inFlight.stream().filter(CompletableFuture::isCompletedExceptionally).count();
                assertThat(inFlight).as("confirmed before the cut, or failed as a lost connection")
                        .allSatisfy(confirmed -> assertThat(confirmed.isCompletedExceptionally()
                                ? reasonOf(confirmed) : Reason.CONNECTION).isEqualTo(Reason.CONNECTION));
                System.out.println("RabbitMQ connection cut: " + failed + " of 2000 in flight failed");

                await().atMost(DEADLINE).until(() -> !proxy.isCut());
                // the first flush after the cut may still meet the closed connection; one after it gets through
                await().atMost(DEADLINE).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> confirmAll(publisher, records(1, "Retry")));
                confirmAll(publisher, records(50, "After"));
            } finally {
                viaProxy.destroy();
            }
        }
        List<Message> messages = broker.takeAll(queue);
        assertThat(messages).filteredOn(message -> message.getMessageProperties().getType().equals("After"))
                .hasSize(50);
    }

    @Test
    void threadsFlushingToOneExchangeAtOnceLoseAndRepeatNoConfirm() throws Exception {
        String exchange = broker.declareExchange("threads");
        String queue = broker.declareQueue(exchange, "#");
        int threads = 6;
        int perThread = 1_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(connection)
                .router(record -> RabbitDestination.of(exchange, "order")).build()) {
            List<Future<List<OutboxRecord>>> sent = new ArrayList<>();
            AtomicInteger completions = new AtomicInteger();
            for (int t = 0; t < threads; t++) {
                String eventType = "Thread" + t;
                sent.add(pool.submit(() -> {
                    List<OutboxRecord> records = records(perThread, eventType);
                    List<CompletableFuture<?>> confirms = new ArrayList<>();
                    for (int n = 0; n < records.size(); n++) {
                        CompletableFuture<?> confirmed = publisher.publish(records.get(n)).toCompletableFuture();
                        confirmed.whenComplete((value, failure) -> completions.incrementAndGet());
                        confirms.add(confirmed);
                        if (n % 50 == 49) {
                            publisher.flush();
                        }
                    }
                    publisher.flush();
                    allOf(confirms);
                    assertThat(confirms).allSatisfy(confirmed -> assertThat(confirmed).isCompleted());
                    return records;
                }));
            }
            Map<String, List<String>> sentByThread = new HashMap<>();
            for (Future<List<OutboxRecord>> thread : sent) {
                List<OutboxRecord> records = thread.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
                sentByThread.put(records.get(0).getEventType(), records.stream().map(OutboxRecord::getId).toList());
            }
            assertThat(completions).hasValue(threads * perThread);

            Map<String, List<String>> arrivedByThread = new HashMap<>();
            broker.takeAll(queue).forEach(message -> arrivedByThread.computeIfAbsent(
                    message.getMessageProperties().getType(), type -> new ArrayList<>())
                    .add(message.getMessageProperties().getMessageId()));
            assertThat(arrivedByThread).as("each thread's messages once, in the order it published them")
                    .isEqualTo(sentByThread);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Publishes and flushes the records and waits for their confirms; true when every one was confirmed. */
    private static boolean confirmAll(RabbitOutboxPublisher publisher, List<OutboxRecord> records) {
        Map<OutboxRecord, CompletableFuture<?>> confirms = publishAll(publisher, records);
        publisher.flush();
        allOf(confirms.values()).join();
        return true;
    }

    private static Map<OutboxRecord, CompletableFuture<?>> publishAll(RabbitOutboxPublisher publisher,
            List<OutboxRecord> records) {
        Map<OutboxRecord, CompletableFuture<?>> confirms = new LinkedHashMap<>();
        records.forEach(record -> confirms.put(record, publisher.publish(record).toCompletableFuture()));
        return confirms;
    }

    /** Waits until every future completed, normally or not; fails the test when one did not within the deadline. */
    private static CompletableFuture<@Nullable Void> allOf(Collection<CompletableFuture<?>> confirms) {
        CompletableFuture<@Nullable Void> all = CompletableFuture.allOf(confirms.toArray(CompletableFuture[]::new));
        await().atMost(DEADLINE).until(() -> confirms.stream().allMatch(CompletableFuture::isDone));
        return all;
    }

    private static Reason reasonOf(CompletableFuture<?> confirmed) {
        return failureOf(confirmed).reason();
    }

    private static PublishException failureOf(CompletableFuture<?> confirmed) {
        assertThat(confirmed).isCompletedExceptionally();
        try {
            confirmed.join();
            throw new AssertionError("completed normally");
        } catch (CompletionException e) {
            return (PublishException) e.getCause();
        }
    }

    private static List<OutboxRecord> records(int count, String eventType) {
        List<OutboxRecord> records = new ArrayList<>();
        for (int n = 0; n < count; n++) {
            records.add(record(eventType + "-" + n, eventType));
        }
        return records;
    }

    private static OutboxRecord record(String aggregateId, String eventType) {
        return OutboxRecord.builder().aggregateId(aggregateId).eventType(eventType).payload("{}")
                .build(Clock.systemUTC());
    }
}
