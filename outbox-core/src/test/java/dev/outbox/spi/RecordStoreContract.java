package dev.outbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.testing.AggregateIds;
import dev.outbox.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every record store must show, run against each implementation: the in-memory store here, the
 * database stores in their modules (shipped in the test-jar).
 *
 * <p>Subclasses provide the store through {@link #recordStore()} and {@link #repository()}, and guarantee that the
 * store is empty before each test (for example with a {@code @BeforeEach} that truncates the table). Records are
 * saved through {@link OutboxRecordRepository#save(OutboxRecord)} without a surrounding transaction. The records'
 * timestamps come from a {@link MutableClock} owned by this class, at microsecond precision as databases store them.
 */
public abstract class RecordStoreContract {

    private static final int MIB = 1024 * 1024;

    /** A whole second plus 123,456 microseconds, so that lost sub-second precision shows. */
    private final MutableClock clock = new MutableClock(
            Instant.now().truncatedTo(ChronoUnit.SECONDS).plus(123_456, ChronoUnit.MICROS));

    /** The processing side of the store under test. */
    protected abstract RecordStore recordStore();

    /** The write/read side of the same store. */
    protected abstract OutboxRecordRepository repository();

    /** The operator side of the same store; by default the record store itself. */
    protected RecordAdministration administration() {
        return (RecordAdministration) recordStore();
    }

    /** The retention side of the same store; by default the record store itself. */
    protected RecordPurge purge() {
        return (RecordPurge) recordStore();
    }

    /** The monitoring side of the same store; by default the record store itself. */
    protected RecordStatistics statistics() {
        return (RecordStatistics) recordStore();
    }

    /** The partition table the store checks fenced writes against; its rows may be owned by anyone at the start. */
    protected abstract PartitionStore partitions();

    /** Whether the store tells {@link RecordStore#highestAssignedSequence()}; those that cannot must say so. */
    protected boolean tellsHighestAssignedSequence() {
        return false;
    }

    // ================================================================ helpers

    private OutboxRecord build(String aggregateId, String payload) {
        return OutboxRecord.builder().aggregateId(aggregateId).eventType("ContractEvent").payload(payload)
                .build(clock);
    }

    /** Saves a new record and returns it as stored (with its sequence). */
    private OutboxRecord save(String aggregateId, String payload) {
        return saved(build(aggregateId, payload));
    }

    private OutboxRecord saved(OutboxRecord record) {
        repository().save(record);
        return stored(record);
    }

    private OutboxRecord stored(OutboxRecord record) {
        return repository().findById(record.getId())
                .orElseThrow(() -> new AssertionError("record " + record.getId() + " not found"));
    }

    private List<String> findDue(boolean headOfAggregateOnly) {
        return findDue(OwnedPartitions.all(), 1_000, headOfAggregateOnly);
    }

    private List<String> findDue(OwnedPartitions partitions, int limit, boolean headOfAggregateOnly) {
        return payloads(recordStore().findDue(
                new DueRecordsQuery(partitions, clock.instant(), limit, headOfAggregateOnly)).records());
    }

    private static List<String> payloads(List<OutboxRecord> records) {
        return records.stream().map(OutboxRecord::getPayload).toList();
    }

    /** The record as handed out by an instance that owns every partition without coordination. */
    private static Delivery unfenced(OutboxRecord record) {
        return Delivery.unfenced(record);
    }

    private static List<Delivery> unfenced(OutboxRecord... records) {
        return Arrays.stream(records).map(Delivery::unfenced).toList();
    }

    /** Keeps the record NEW but not due before {@code clock + 1 h}. */
    private void makeWaiting(OutboxRecord record) {
        assertThat(recordStore().scheduleRetry(unfenced(stored(record)), 1, clock.instant().plus(Duration.ofHours(1)),
                "java.io.IOException: broker down")).isTrue();
    }

    // ================================================================ the highest sequence handed out

    @Test
    public final void theHighestAssignedSequenceCoversEverySavedRecordAndNoLaterOne() {
        if (!tellsHighestAssignedSequence()) {
            save("A", "a1");
            assertThat(recordStore().highestAssignedSequence()).as("a store that cannot tell says so").isEmpty();
            return;
        }
        OutboxRecord first = save("A", "a1");
        long afterFirst = recordStore().highestAssignedSequence().orElseThrow();
        assertThat(afterFirst).isGreaterThanOrEqualTo(first.getSequence());

        OutboxRecord second = save("B", "b1");
        assertThat(second.getSequence()).as("handed out later").isGreaterThan(afterFirst);
        assertThat(recordStore().highestAssignedSequence().orElseThrow()).isGreaterThanOrEqualTo(second.getSequence());
    }

    // ================================================================ administration of FAILED records

    @Test
    public final void skippingAFailedRecordLetsTheLaterRecordsOfItsAggregateGoOn() {
        OutboxRecord parked = save("A", "a1-parked");
        save("A", "a2");
        save("B", "b1");
        assertThat(recordStore().markFailed(unfenced(stored(parked)), 3, "gave up")).isTrue();
        assertThat(findDue(true)).as("parked").containsExactly("b1");

        assertThat(administration().skipFailed(parked.getId(), clock.instant())).isTrue();

        assertThat(findDue(true)).containsExactly("a2", "b1");
        assertThat(stored(parked).getStatus()).isEqualTo(OutboxRecordStatus.SKIPPED);
        assertThat(stored(parked).getLastError()).as("kept for the record").isEqualTo("gave up");
        assertThat(administration().skipFailed(parked.getId(), clock.instant())).as("only FAILED").isFalse();
    }

    @Test
    public final void retryingMakesFailedRecordsDueAgainWithAFreshRetryCount() {
        OutboxRecord x1 = save("A", "x1");
        OutboxRecord x2 = save("B", "x2");
        OutboxRecord y1 = saved(OutboxRecord.builder().aggregateId("C").eventType("Other").payload("y1")
                .build(clock));
        OutboxRecord fresh = save("D", "new");
        for (OutboxRecord record : List.of(x1, x2, y1)) {
            assertThat(recordStore().markFailed(unfenced(stored(record)), 3, "gave up")).isTrue();
        }
        clock.advance(Duration.ofMinutes(1));

        assertThat(administration().retryAllFailed(FailedRecordFilter.any().withEventType("ContractEvent"),
                clock.instant())).isEqualTo(2);
        assertThat(List.of(stored(x1), stored(x2))).allSatisfy(record -> {
            assertThat(record.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
            assertThat(record.getRetryCount()).isZero();
            assertThat(record.getNextRetryAt()).isEqualTo(clock.instant());
        });
        assertThat(stored(y1).getStatus()).isEqualTo(OutboxRecordStatus.FAILED);

        assertThat(administration().retryFailed(y1.getId(), clock.instant())).isTrue();
        assertThat(administration().retryFailed(fresh.getId(), clock.instant())).as("only FAILED").isFalse();
        assertThat(findDue(true)).containsExactly("x1", "x2", "y1", "new");
    }

    @Test
    public final void failedRecordsAreListedOldestFirstByFilterAndDeletedOnlyWhenFailedOrSkipped() {
        OutboxRecord a = save("A", "a");
        clock.advance(Duration.ofHours(1));
        OutboxRecord b = save("B", "b");
        OutboxRecord c = saved(OutboxRecord.builder().aggregateId("A").eventType("Other").payload("c")
                .build(clock));
        OutboxRecord fresh = save("D", "new");
        for (OutboxRecord record : List.of(a, b, c)) {
            assertThat(recordStore().markFailed(unfenced(stored(record)), 3, "gave up")).isTrue();
        }

        assertThat(payloads(administration().findFailed(FailedRecordFilter.any(), 10))).containsExactly("a", "b", "c");
        assertThat(payloads(administration().findFailed(FailedRecordFilter.any(), 2))).containsExactly("a", "b");
        assertThat(payloads(administration().findFailed(FailedRecordFilter.any().withAggregateId("A"), 10)))
                .containsExactly("a", "c");
        assertThat(payloads(administration().findFailed(FailedRecordFilter.any().withEventType("Other"), 10)))
                .containsExactly("c");
        assertThat(payloads(administration().findFailed(
                FailedRecordFilter.any().createdBetween(clock.instant(), null), 10))).containsExactly("b", "c");
        assertThat(payloads(administration().findFailed(
                FailedRecordFilter.any().createdBetween(null, clock.instant()), 10))).containsExactly("a");

        assertThat(administration().deleteFailed(a.getId())).isTrue();
        assertThat(administration().skipFailed(b.getId(), clock.instant())).isTrue();
        assertThat(administration().deleteFailed(b.getId())).as("SKIPPED may go too").isTrue();
        assertThat(administration().deleteFailed(fresh.getId())).as("never a NEW record").isFalse();
        assertThat(repository().findById(a.getId())).isEmpty();
        assertThat(repository().findById(fresh.getId())).isPresent();
    }

    // ================================================================ retention

    @Test
    public final void purgeDeletesOnlyOldRecordsOfTheStatusAndPartitionsOldestFirstUpToTheLimit() {
        String inPartition3 = AggregateIds.inPartition(3, "p3");
        String inPartition4 = AggregateIds.inPartition(4, "p4");
        List<OutboxRecord> old = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            old.add(save(inPartition3, "old-" + i));
        }
        OutboxRecord oldOtherPartition = save(inPartition4, "old-other-partition");
        OutboxRecord oldFailed = save(inPartition3, "old-failed");
        OutboxRecord oldNew = save(inPartition3, "old-new");
        clock.advance(Duration.ofDays(8));
        OutboxRecord recent = save(inPartition3, "recent");
        for (OutboxRecord record : List.of(old.get(0), old.get(1), old.get(2), oldOtherPartition, recent)) {
            assertThat(recordStore().markCompleted(unfenced(stored(record)), clock.instant())).isTrue();
        }
        assertThat(recordStore().markFailed(unfenced(stored(oldFailed)), 3, "gave up")).isTrue();
        Instant cutoff = clock.instant().minus(Duration.ofDays(7));
        OwnedPartitions partition3 = OwnedPartitions.of(3);

        assertThat(purge().purge(partition3, OutboxRecordStatus.COMPLETED, cutoff, 2)).isEqualTo(2);
        assertThat(repository().findById(old.get(0).getId())).as("oldest first").isEmpty();
        assertThat(repository().findById(old.get(1).getId())).isEmpty();
        assertThat(repository().findById(old.get(2).getId())).isPresent();

        assertThat(purge().purge(partition3, OutboxRecordStatus.COMPLETED, cutoff, 2)).isEqualTo(1);
        assertThat(purge().purge(partition3, OutboxRecordStatus.COMPLETED, cutoff, 2)).isZero();
        assertThat(payloads(repository().findByStatus(OutboxRecordStatus.COMPLETED, 10)))
                .containsExactly("old-other-partition", "recent");
        assertThat(stored(oldFailed).getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(stored(oldNew).getStatus()).isEqualTo(OutboxRecordStatus.NEW);

        assertThat(purge().purge(partition3, OutboxRecordStatus.FAILED, cutoff, 10)).isEqualTo(1);
        assertThat(repository().findById(oldNew.getId())).as("NEW records stay").isPresent();
    }

    @Test
    public final void thePurgerDeletesInBatchesUntilNothingOldIsLeft() {
        for (int i = 0; i < 25; i++) {
            OutboxRecord record = save("agg-" + (i % 7), "old-" + i);
            assertThat(recordStore().markCompleted(unfenced(stored(record)), clock.instant())).isTrue();
        }
        clock.advance(Duration.ofDays(2));
        OutboxRecord recent = save("agg-1", "recent");
        assertThat(recordStore().markCompleted(unfenced(stored(recent)), clock.instant())).isTrue();
        List<Integer> batches = new ArrayList<>();
        RecordPurge counting = (partitions, status, createdBefore, limit) -> {
            int deleted = purge().purge(partitions, status, createdBefore, limit);
            batches.add(deleted);
            return deleted;
        };

        long deleted = dev.outbox.retention.OutboxPurger.builder().store(counting).clock(clock)
                .retention(Duration.ofDays(1)).batchSize(10).build().purgeNow();

        assertThat(deleted).isEqualTo(25);
        assertThat(batches).as("COMPLETED in three statements, then SKIPPED: none").containsExactly(10, 10, 5, 0);
        assertThat(payloads(repository().findByStatus(OutboxRecordStatus.COMPLETED, 10))).containsExactly("recent");
    }

    // ================================================================ statistics

    @Test
    public final void statisticsCountRecordsPerStatusAndNewRecordsPerPartitionAndHandlerWithTheOldest() {
        String inPartition7 = AggregateIds.inPartition(7, "p7");
        String inPartition200 = AggregateIds.inPartition(200, "p200");
        OutboxRecord oldest = save(inPartition7, "a");
        clock.advance(Duration.ofSeconds(5));
        save(inPartition7, "b");
        OutboxRecord mailer = saved(build(inPartition7, "m1").withHandlerId("mailer"));
        clock.advance(Duration.ofSeconds(1));
        saved(build(inPartition7, "m2").withHandlerId("mailer"));
        OutboxRecord completed = save(inPartition200, "c");
        OutboxRecord failed = save(inPartition200, "d");
        clock.advance(Duration.ofSeconds(5));
        OutboxRecord waiting = save(inPartition200, "e");
        assertThat(recordStore().markCompleted(unfenced(completed), clock.instant())).isTrue();
        assertThat(recordStore().markFailed(unfenced(stored(failed)), 3, "gave up")).isTrue();
        makeWaiting(waiting);

        assertThat(statistics().countByStatus()).containsOnly(
                Map.entry(OutboxRecordStatus.NEW, 5L),
                Map.entry(OutboxRecordStatus.COMPLETED, 1L),
                Map.entry(OutboxRecordStatus.FAILED, 1L));
        assertThat(statistics().pendingByPartitionAndHandler()).containsExactlyInAnyOrder(
                new PartitionBacklog(7, null, 2, oldest.getCreatedAt()),
                new PartitionBacklog(7, "mailer", 2, stored(mailer).getCreatedAt()),
                new PartitionBacklog(200, null, 1, stored(waiting).getCreatedAt()));
    }

    @Test
    public final void statisticsOfAnEmptyStoreAreEmpty() {
        assertThat(statistics().countByStatus().values()).allSatisfy(count -> assertThat(count).isZero());
        assertThat(statistics().pendingByPartitionAndHandler()).isEmpty();
    }

    // ================================================================ saving and reading

    @Test
    public final void saveAndFindByIdRoundTripEveryField() {
        OutboxRecord record = build("order-4711", "{\"order\":\"4711\",\"total\":12.50}");

        OutboxRecord returned = repository().save(record);
        OutboxRecord found = stored(record);

        assertThat(returned.getId()).isEqualTo(record.getId());
        assertThat(found).usingRecursiveComparison().ignoringFields("sequence").isEqualTo(record);
        assertThat(found.getId()).isEqualTo(record.getId());
        assertThat(found.getAggregateId()).isEqualTo("order-4711");
        assertThat(found.getEventType()).isEqualTo("ContractEvent");
        assertThat(found.getPayload()).isEqualTo("{\"order\":\"4711\",\"total\":12.50}");
        assertThat(found.getPartition()).isEqualTo(PartitionHasher.partitionOf("order-4711"));
        assertThat(found.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(found.getRetryCount()).isZero();
        assertThat(found.getCreatedAt()).isEqualTo(clock.instant());
        assertThat(found.getNextRetryAt()).isEqualTo(clock.instant());
        assertThat(found.getCompletedAt()).isNull();
        assertThat(found.getLastError()).isNull();
        assertThat(found.getTraceContext()).isNull();
        assertThat(found.getSequence()).isNotNull();
    }

    @Test
    public final void theTraceContextOfTheWriteIsStoredAndDeliveredWithTheRecord() {
        String context = "traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        OutboxRecord record = build("order-9", "{}").withTraceContext(context);

        repository().save(record);

        assertThat(stored(record).getTraceContext()).isEqualTo(context);
        assertThat(recordStore().findDue(new DueRecordsQuery(OwnedPartitions.all(), clock.instant(), 10, true)).records())
                .singleElement().extracting(OutboxRecord::getTraceContext).isEqualTo(context);
    }

    @Test
    public final void theHeadersOfTheWriteAreStoredAndDeliveredWithTheRecordInTheirOrder() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("tenant", "acme");
        headers.put("correlation-id", "c-42 & more=yes");
        headers.put("schema.version", "");
        headers.put("note", "grüße, ☃ and 🎉");
        OutboxRecord record = OutboxRecord.builder().aggregateId("order-10").eventType("ContractEvent")
                .payload("{}").headers(headers).build(clock);

        repository().save(record);

        assertThat(stored(record).getHeaders()).containsExactlyEntriesOf(headers);
        assertThat(recordStore().findDue(new DueRecordsQuery(OwnedPartitions.all(), clock.instant(), 10, true)).records())
                .singleElement().extracting(OutboxRecord::getHeaders).isEqualTo(headers);
        OutboxRecord plain = save("order-11", "{}");
        assertThat(stored(plain).getHeaders()).isEmpty();
    }

    @Test
    public final void findByIdOfAnUnknownIdIsEmpty() {
        save("order-1", "p");
        assertThat(repository().findById(build("order-1", "never saved").getId())).isEmpty();
    }

    @Test
    public final void findByAggregateIdReturnsOnlyThatAggregateInSequenceOrder() {
        // Created in one order, saved in another: the sequence follows the saves.
        clock.advance(Duration.ofSeconds(2));
        OutboxRecord a2 = build("A", "a2");
        clock.advance(Duration.ofSeconds(-1));
        OutboxRecord a3 = build("A", "a3");
        save("A", "a1");
        save("B", "b1");
        saved(a2);
        save("B", "b2");
        saved(a3);

        List<OutboxRecord> ofA = repository().findByAggregateId("A");

        assertThat(payloads(ofA)).containsExactly("a1", "a2", "a3");
        assertThat(ofA).extracting(OutboxRecord::getSequence).isSorted().doesNotHaveDuplicates();
        assertThat(payloads(repository().findByAggregateId("B"))).containsExactly("b1", "b2");
        assertThat(repository().findByAggregateId("C")).isEmpty();
    }

    @Test
    public final void findByStatusReturnsOldestFirstUpToTheLimitAndCountByStatusCounts() {
        List<OutboxRecord> records = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            records.add(save("agg-" + i, "r" + i));
        }
        assertThat(recordStore().markCompleted(unfenced(records.get(1)), clock.instant())).isTrue();
        assertThat(recordStore().markCompleted(unfenced(records.get(3)), clock.instant())).isTrue();
        assertThat(recordStore().markFailed(unfenced(records.get(4)), 0, "java.lang.IllegalStateException: x")).isTrue();

        assertThat(payloads(repository().findByStatus(OutboxRecordStatus.NEW, 10))).containsExactly("r1", "r3",
                "r6");
        assertThat(payloads(repository().findByStatus(OutboxRecordStatus.NEW, 2))).containsExactly("r1", "r3");
        assertThat(payloads(repository().findByStatus(OutboxRecordStatus.COMPLETED, 10))).containsExactly("r2",
                "r4");
        assertThat(payloads(repository().findByStatus(OutboxRecordStatus.FAILED, 10))).containsExactly("r5");
        assertThat(repository().countByStatus(OutboxRecordStatus.NEW)).isEqualTo(3);
        assertThat(repository().countByStatus(OutboxRecordStatus.COMPLETED)).isEqualTo(2);
        assertThat(repository().countByStatus(OutboxRecordStatus.FAILED)).isEqualTo(1);
    }

    @Test
    public final void anEmptyStoreHasNothing() {
        for (OutboxRecordStatus status : OutboxRecordStatus.values()) {
            assertThat(repository().countByStatus(status)).isZero();
            assertThat(repository().findByStatus(status, 10)).isEmpty();
        }
        assertThat(findDue(true)).isEmpty();
        assertThat(findDue(false)).isEmpty();
    }

    @Test
    public final void sequenceStrictlyIncreasesWithSaveOrderNotWithCreationTimeOrId() {
        List<OutboxRecord> built = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            built.add(build("agg-" + (i % 3), "r" + i));
            clock.advance(Duration.ofMillis(1));
        }
        List<OutboxRecord> saveOrder = new ArrayList<>(built);
        java.util.Collections.reverse(saveOrder);

        long previous = Long.MIN_VALUE;
        for (OutboxRecord record : saveOrder) {
            long sequence = saved(record).getSequence();
            assertThat(sequence).isGreaterThan(previous);
            previous = sequence;
        }
    }

    @Test
    public final void saveAllStoresTheRecordsInTheGivenOrder() {
        List<OutboxRecord> batch = List.of(build("A", "x1"), build("B", "x2"), build("A", "x3"));

        repository().saveAll(batch);

        assertThat(batch.stream().map(this::stored).map(OutboxRecord::getSequence).toList()).isSorted()
                .doesNotHaveDuplicates();
        assertThat(findDue(true)).containsExactly("x1", "x2", "x3");
    }

    // ================================================================ findDue: due-ness, partitions, limit, order

    @Test
    public final void findDueReturnsOnlyNewRecordsWhoseNextRetryAtIsNotAfterNow() {
        Instant now = clock.instant();
        clock.set(now.minusSeconds(1));
        save("past", "past");
        OutboxRecord completed = save("completed", "completed");
        OutboxRecord failed = save("failed", "failed");
        OutboxRecord retryLater = save("retry-later", "retry-later");
        OutboxRecord retryNow = save("retry-now", "retry-now");
        clock.set(now);
        save("exactly-now", "exactly-now");
        clock.set(now.plus(1, ChronoUnit.MICROS));
        save("one-micro-later", "one-micro-later");
        clock.set(now);
        assertThat(recordStore().markCompleted(unfenced(completed), now)).isTrue();
        assertThat(recordStore().markFailed(unfenced(failed), 0, "java.lang.IllegalStateException: no")).isTrue();
        assertThat(recordStore().scheduleRetry(unfenced(retryLater), 1, now.plusSeconds(10), "e")).isTrue();
        assertThat(recordStore().scheduleRetry(unfenced(retryNow), 1, now, "e")).isTrue();

        for (boolean headOfAggregateOnly : new boolean[] {true, false}) {
            assertThat(findDue(headOfAggregateOnly)).as("headOfAggregateOnly=%s", headOfAggregateOnly)
                    .containsExactly("past", "retry-now", "exactly-now");
        }

        clock.set(now.plus(1, ChronoUnit.MICROS));
        assertThat(findDue(true)).containsExactly("past", "retry-now", "exactly-now", "one-micro-later");
        clock.set(now.plusSeconds(10));
        assertThat(findDue(false)).containsExactly("past", "retry-later", "retry-now", "exactly-now",
                "one-micro-later");
    }

    @Test
    public final void findDueReturnsCompleteRecordsIncludingRetryState() {
        OutboxRecord record = save("A", "a1");
        Instant retryAt = clock.instant().plusSeconds(5);
        assertThat(recordStore().scheduleRetry(unfenced(record), 1, retryAt, "java.io.IOException: timeout")).isTrue();
        clock.set(retryAt);

        List<OutboxRecord> due = recordStore().findDue(
                new DueRecordsQuery(OwnedPartitions.all(), clock.instant(), 10, true)).records();

        assertThat(due).singleElement().satisfies(r -> {
            assertThat(r).usingRecursiveComparison().isEqualTo(stored(record));
            assertThat(r.getRetryCount()).isEqualTo(1);
            assertThat(r.getNextRetryAt()).isEqualTo(retryAt);
            assertThat(r.getLastError()).isEqualTo("java.io.IOException: timeout");
            assertThat(r.getSequence()).isEqualTo(record.getSequence());
        });
    }

    @Test
    public final void findDueReturnsOnlyRecordsOfTheQueriedPartitions() {
        int[] partitions = {3, 64, 200};
        for (int partition : partitions) {
            String aggregateId = AggregateIds.inPartition(partition, "p" + partition);
            save(aggregateId, "p" + partition + "-1");
            save(aggregateId, "p" + partition + "-2");
        }
        save(AggregateIds.inPartition(3, "other"), "p3-other");

        for (boolean headOfAggregateOnly : new boolean[] {true, false}) {
            assertThat(findDue(OwnedPartitions.of(3, 200), 100, headOfAggregateOnly))
                    .containsExactly("p3-1", "p3-2", "p200-1", "p200-2", "p3-other");
            assertThat(findDue(OwnedPartitions.of(64), 100, headOfAggregateOnly)).containsExactly("p64-1", "p64-2");
            assertThat(findDue(OwnedPartitions.of(5), 100, headOfAggregateOnly)).isEmpty();
            assertThat(findDue(OwnedPartitions.all(), 100, headOfAggregateOnly)).hasSize(7);
        }
    }

    @Test
    public final void findDueRespectsTheLimitAndOrdersBySequence() {
        // r9 is created first and r0 last, but r0 is saved first: the order must follow the saves, not the
        // creation time or the (time-ordered) id.
        List<OutboxRecord> built = new ArrayList<>();
        for (int i = 9; i >= 0; i--) {
            clock.advance(Duration.ofMillis(1));
            built.add(0, build("agg-" + (i % 4), "r" + i));
        }
        clock.advance(Duration.ofSeconds(1));
        built.forEach(this::saved);

        for (boolean headOfAggregateOnly : new boolean[] {true, false}) {
            assertThat(findDue(OwnedPartitions.all(), 4, headOfAggregateOnly)).containsExactly("r0", "r1", "r2",
                    "r3");
            assertThat(findDue(OwnedPartitions.all(), 1, headOfAggregateOnly)).containsExactly("r0");
            assertThat(findDue(OwnedPartitions.all(), 100, headOfAggregateOnly)).containsExactly("r0", "r1", "r2",
                    "r3", "r4", "r5", "r6", "r7", "r8", "r9");
        }
    }

    @Test
    public final void findDueFromASequenceLeavesOutTheRecordsBelowItWhichStillHoldBackTheirAggregates() {
        OutboxRecord a1 = save("A", "a1");
        OutboxRecord b1 = save("B", "b1");
        save("C", "c1");
        OutboxRecord a2 = save("A", "a2");
        save("B", "b2");
        save("C", "c2");
        save("D", "d1");
        makeWaiting(a1);
        assertThat(recordStore().markFailed(unfenced(stored(b1)), 3, "gave up")).isTrue();

        for (boolean headOfAggregateOnly : new boolean[] {true, false}) {
            DueRecordsQuery fromA2 = new DueRecordsQuery(OwnedPartitions.all(), clock.instant(), 100,
                    headOfAggregateOnly, Set.of(), a2.getSequence());
            List<String> due = payloads(recordStore().findDue(fromA2).records());
            if (headOfAggregateOnly) {
                // a1 waits for its retry, b1 FAILED, c1 is due: each below the floor, each holds its aggregate back
                assertThat(due).containsExactly("d1");
            } else {
                assertThat(due).containsExactly("a2", "b2", "c2", "d1");
            }
        }
    }

    @Test
    public final void findDueOfAStretchReadsFromItsStartToBeforeItsEnd() {
        save("A", "a1");
        OutboxRecord b1 = save("B", "b1");
        save("A", "a2");
        OutboxRecord c1 = save("C", "c1");
        save("B", "b2");

        for (boolean headOfAggregateOnly : new boolean[] {true, false}) {
            DueRecordsQuery firstStretch = new DueRecordsQuery(OwnedPartitions.all(), clock.instant(), 100,
                    headOfAggregateOnly, Set.of(), null, b1.getSequence() + 1);
            assertThat(payloads(recordStore().findDue(firstStretch).records())).containsExactly("a1", "b1");
            DueRecordsQuery secondStretch = new DueRecordsQuery(OwnedPartitions.all(), clock.instant(), 100,
                    headOfAggregateOnly, Set.of(), b1.getSequence() + 1, c1.getSequence() + 1);
            List<String> due = payloads(recordStore().findDue(secondStretch).records());
            if (headOfAggregateOnly) {
                assertThat(due).as("a1, below the stretch, holds a2 back").containsExactly("c1");
            } else {
                assertThat(due).containsExactly("a2", "c1");
            }
        }
    }

    // ================================================================ findDue: head of aggregate

    @Test
    public final void aRecordWaitingForARetryHoldsBackLaterRecordsOfItsAggregateOnly() {
        OutboxRecord a1 = save("A", "a1");
        save("B", "b1");
        save("A", "a2");
        save("B", "b2");
        save("A", "a3");
        makeWaiting(a1);

        assertThat(findDue(true)).containsExactly("b1", "b2");
        assertThat(findDue(false)).containsExactly("b1", "a2", "b2", "a3");
    }

    @Test
    public final void aFailedRecordHoldsBackLaterRecordsOfItsAggregateOnly() {
        OutboxRecord a1 = save("A", "a1");
        save("B", "b1");
        save("A", "a2");
        assertThat(recordStore().markFailed(unfenced(a1), 3, "java.lang.IllegalStateException: gave up")).isTrue();

        assertThat(findDue(true)).containsExactly("b1");
        clock.advance(Duration.ofDays(365));
        assertThat(findDue(true)).as("a FAILED record never becomes due").containsExactly("b1");
        assertThat(findDue(false)).containsExactly("b1", "a2");
    }

    @Test
    public final void aWaitingRecordHoldsBackLaterRecordsOfItsHandlerOnlyNotOtherHandlersOfTheAggregate() {
        OutboxRecord mail1 = saved(forHandler("A", "mail-1", "mailer"));
        saved(forHandler("A", "ledger-1", "ledger"));
        saved(forHandler("A", "mail-2", "mailer"));
        saved(forHandler("A", "ledger-2", "ledger"));
        save("A", "unaddressed");
        makeWaiting(mail1);

        assertThat(findDue(true)).containsExactly("ledger-1", "ledger-2", "unaddressed");

        assertThat(recordStore().markFailed(unfenced(stored(mail1)), 3, "gave up")).isTrue();
        assertThat(findDue(true)).containsExactly("ledger-1", "ledger-2", "unaddressed");
        assertThat(payloads(administration().findFailed(FailedRecordFilter.any().withHandlerId("ledger"), 10)))
                .isEmpty();
        assertThat(administration().findFailed(FailedRecordFilter.any().withHandlerId("mailer"), 10))
                .extracting(OutboxRecord::getHandlerId).containsExactly("mailer");
        assertThat(administration().retryAllFailed(FailedRecordFilter.any().withHandlerId("ledger"),
                clock.instant())).isZero();
        assertThat(administration().retryAllFailed(FailedRecordFilter.any().withHandlerId("mailer"),
                clock.instant())).isEqualTo(1);
        assertThat(findDue(true)).containsExactly("mail-1", "ledger-1", "mail-2", "ledger-2", "unaddressed");
        assertThat(recordStore().findDue(new DueRecordsQuery(OwnedPartitions.all(), clock.instant(), 10, true)).records())
                .extracting(OutboxRecord::getHandlerId)
                .containsExactly("mailer", "ledger", "mailer", "ledger", null);
    }

    private OutboxRecord forHandler(String aggregateId, String payload, String handlerId) {
        return OutboxRecord.builder().aggregateId(aggregateId).eventType("ContractEvent").payload(payload)
                .handlerId(handlerId).build(clock);
    }

    @Test
    public final void aDelayedRecordIsNotDueBeforeItsTimeAndHoldsBackItsAggregate() {
        saved(OutboxRecord.builder().aggregateId("A").eventType("ContractEvent").payload("a1-delayed")
                .deliverAfter(Duration.ofMinutes(5)).build(clock));
        save("A", "a2");
        save("B", "b1");

        assertThat(findDue(true)).containsExactly("b1");
        clock.advance(Duration.ofMinutes(5).minusNanos(1000));
        assertThat(findDue(true)).as("one microsecond early").containsExactly("b1");
        clock.advance(Duration.ofNanos(1000));
        assertThat(findDue(true)).containsExactly("a1-delayed", "a2", "b1");
    }

    @Test
    public final void aNotYetDueFirstAttemptHoldsBackLaterRecordsOfItsAggregate() {
        clock.advance(Duration.ofSeconds(1));
        OutboxRecord future = build("A", "a1-future");
        clock.advance(Duration.ofSeconds(-1));
        saved(future);
        save("A", "a2");
        save("B", "b1");

        assertThat(findDue(true)).containsExactly("b1");
        assertThat(findDue(false)).containsExactly("a2", "b1");
        clock.advance(Duration.ofSeconds(1));
        assertThat(findDue(true)).containsExactly("a1-future", "a2", "b1");
    }

    @Test
    public final void completedEarlierRecordsDoNotHoldBackLaterOnes() {
        OutboxRecord a1 = save("A", "a1");
        OutboxRecord a2 = save("A", "a2");
        save("A", "a3");
        assertThat(recordStore().markCompleted(unfenced(a1), clock.instant())).isTrue();
        assertThat(recordStore().markCompleted(unfenced(a2), clock.instant())).isTrue();

        assertThat(findDue(true)).containsExactly("a3");
    }

    @Test
    public final void aDuePrefixOfAnAggregateIsReturnedInOrder() {
        save("A", "a1");
        save("B", "b1");
        save("A", "a2");
        save("A", "a3");
        save("B", "b2");

        assertThat(findDue(true)).containsExactly("a1", "b1", "a2", "a3", "b2");
    }

    @Test
    public final void theDuePrefixEndsAtTheFirstWaitingRecord() {
        save("A", "a1");
        OutboxRecord a2 = save("A", "a2");
        save("A", "a3");
        save("B", "b1");
        makeWaiting(a2);

        assertThat(findDue(true)).containsExactly("a1", "b1");
        assertThat(findDue(false)).containsExactly("a1", "a3", "b1");
    }

    @Test
    public final void headOfAggregateOnlyFalseReturnsLaterRecordsEvenWhenAnEarlierOneWaits() {
        OutboxRecord a1 = save("A", "a1");
        OutboxRecord a2 = save("A", "a2");
        save("A", "a3");
        makeWaiting(a1);
        assertThat(recordStore().markFailed(unfenced(a2), 0, "java.lang.IllegalStateException: x")).isTrue();

        assertThat(findDue(false)).containsExactly("a3");
        assertThat(findDue(true)).isEmpty();
    }

    // ================================================================ status writes

    @Test
    public final void markCompletedChangesOnlyStatusAndCompletedAt() {
        OutboxRecord record = save("A", "a1");
        OutboxRecord neighbour = save("A", "a2");
        Instant completedAt = clock.instant().plusSeconds(5);

        assertThat(recordStore().markCompleted(unfenced(record), completedAt)).isTrue();

        OutboxRecord after = stored(record);
        assertThat(after.getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(after.getCompletedAt()).isEqualTo(completedAt);
        assertThat(after).usingRecursiveComparison().ignoringFields("status", "completedAt").isEqualTo(record);
        assertThat(stored(neighbour)).usingRecursiveComparison().isEqualTo(neighbour);
    }

    @Test
    public final void scheduleRetryChangesOnlyRetryCountNextRetryAtAndLastError() {
        OutboxRecord record = save("A", "a1");
        OutboxRecord neighbour = save("B", "b1");
        Instant nextRetryAt = clock.instant().plusSeconds(30);

        assertThat(recordStore().scheduleRetry(unfenced(record), 1, nextRetryAt, "java.io.IOException: refused")).isTrue();

        OutboxRecord after = stored(record);
        assertThat(after.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(after.getRetryCount()).isEqualTo(1);
        assertThat(after.getNextRetryAt()).isEqualTo(nextRetryAt);
        assertThat(after.getLastError()).isEqualTo("java.io.IOException: refused");
        assertThat(after.getCompletedAt()).isNull();
        assertThat(after).usingRecursiveComparison().ignoringFields("retryCount", "nextRetryAt", "lastError")
                .isEqualTo(record);
        assertThat(stored(neighbour)).usingRecursiveComparison().isEqualTo(neighbour);

        // Still NEW: the next failure may be scheduled again.
        Instant later = nextRetryAt.plusSeconds(60);
        assertThat(recordStore().scheduleRetry(unfenced(after), 2, later, "java.io.IOException: refused again")).isTrue();
        assertThat(stored(record).getRetryCount()).isEqualTo(2);
        assertThat(stored(record).getNextRetryAt()).isEqualTo(later);
        assertThat(stored(record).getLastError()).isEqualTo("java.io.IOException: refused again");
    }

    @Test
    public final void markFailedChangesOnlyStatusRetryCountAndLastError() {
        OutboxRecord record = save("A", "a1");
        OutboxRecord neighbour = save("B", "b1");

        assertThat(recordStore().markFailed(unfenced(record), 3, "java.lang.IllegalStateException: gave up")).isTrue();

        OutboxRecord after = stored(record);
        assertThat(after.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(after.getRetryCount()).isEqualTo(3);
        assertThat(after.getLastError()).isEqualTo("java.lang.IllegalStateException: gave up");
        assertThat(after.getCompletedAt()).isNull();
        assertThat(after).usingRecursiveComparison().ignoringFields("status", "retryCount", "lastError")
                .isEqualTo(record);
        assertThat(stored(neighbour)).usingRecursiveComparison().isEqualTo(neighbour);
    }

    @Test
    public final void markingCompletedTwiceReturnsFalseTheSecondTimeAndKeepsTheFirstOutcome() {
        OutboxRecord record = save("A", "a1");
        Instant first = clock.instant().plusSeconds(1);
        assertThat(recordStore().markCompleted(unfenced(record), first)).isTrue();
        OutboxRecord completed = stored(record);

        assertThat(recordStore().markCompleted(unfenced(completed), first.plusSeconds(10))).isFalse();
        assertThat(recordStore().scheduleRetry(unfenced(completed), 1, first.plusSeconds(10), "late failure")).isFalse();
        assertThat(recordStore().markFailed(unfenced(completed), 1, "late failure")).isFalse();

        assertThat(stored(record)).usingRecursiveComparison().isEqualTo(completed);
        assertThat(stored(record).getCompletedAt()).isEqualTo(first);
    }

    @Test
    public final void aFailedRecordAcceptsNoFurtherStatusWrite() {
        OutboxRecord record = save("A", "a1");
        assertThat(recordStore().markFailed(unfenced(record), 0, "java.lang.IllegalStateException: poison")).isTrue();
        OutboxRecord failed = stored(record);

        assertThat(recordStore().markCompleted(unfenced(failed), clock.instant())).isFalse();
        assertThat(recordStore().scheduleRetry(unfenced(failed), 0, clock.instant(), "again")).isFalse();
        assertThat(recordStore().markFailed(unfenced(failed), 0, "again")).isFalse();

        assertThat(stored(record)).usingRecursiveComparison().isEqualTo(failed);
    }

    @Test
    public final void statusWritesForAnUnknownIdReturnFalseAndWriteNothing() {
        save("A", "a1");
        OutboxRecord unknown = build("A", "never saved");

        assertThat(recordStore().markCompleted(unfenced(unknown), clock.instant())).isFalse();
        assertThat(recordStore().scheduleRetry(unfenced(unknown), 1, clock.instant(), "e")).isFalse();
        assertThat(recordStore().markFailed(unfenced(unknown), 1, "e")).isFalse();

        assertThat(repository().findById(unknown.getId())).isEmpty();
        assertThat(repository().countByStatus(OutboxRecordStatus.NEW)).isEqualTo(1);
        assertThat(repository().countByStatus(OutboxRecordStatus.COMPLETED)).isZero();
        assertThat(repository().countByStatus(OutboxRecordStatus.FAILED)).isZero();
    }

    @Test
    public final void markCompletedOfSeveralRecordsCompletesThemAllAndReportsThoseItCouldNot() {
        OutboxRecord a1 = save("A", "a1");
        OutboxRecord a2 = save("A", "a2");
        OutboxRecord a3 = save("A", "a3");
        assertThat(recordStore().markFailed(unfenced(a2), 0, "poison")).isTrue();
        Instant at = clock.instant().plusSeconds(1);

        List<Delivery> notChanged = recordStore().markCompleted(unfenced(a1, a2, a3), at);

        assertThat(notChanged).extracting(Delivery::record).containsExactly(a2);
        assertThat(stored(a1).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(stored(a1).getCompletedAt()).isEqualTo(at);
        assertThat(stored(a2).getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(stored(a3).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(recordStore().markCompleted(List.of(), at)).isEmpty();
    }

    @Test
    public final void deleteCompletedRemovesTheRowsOnlyWhileTheyAreUnchanged() {
        OutboxRecord a1 = save("A", "a1");
        OutboxRecord a2 = save("A", "a2");
        OutboxRecord a3 = save("A", "a3");
        OutboxRecord b1 = save("B", "b1");
        assertThat(recordStore().scheduleRetry(unfenced(a3), 1, clock.instant(), "once")).isTrue();

        assertThat(recordStore().deleteCompleted(unfenced(b1))).isTrue();
        List<Delivery> notDeleted = recordStore().deleteCompleted(unfenced(a1, a2, a3));

        assertThat(notDeleted).extracting(Delivery::record).as("a3 was read before its retry was scheduled")
                .containsExactly(a3);
        assertThat(repository().findById(a1.getId())).isEmpty();
        assertThat(repository().findById(a2.getId())).isEmpty();
        assertThat(repository().findById(b1.getId())).isEmpty();
        assertThat(stored(a3).getRetryCount()).isEqualTo(1);
        assertThat(recordStore().deleteCompleted(unfenced(b1))).as("already gone").isFalse();
    }

    // ================================================================ deferral (records of handlers an instance lacks)

    @Test
    public final void deferKeepsTheRecordNewWithItsRetryCountAndStoresTheFirstDeferralOnce() {
        OutboxRecord record = saved(forHandler("A", "a1", "mailer"));
        OutboxRecord neighbour = saved(forHandler("B", "b1", "mailer"));
        assertThat(record.getFirstDeferredAt()).as("never deferred").isNull();
        Instant first = clock.instant();

        assertThat(recordStore().defer(unfenced(record), first.plusSeconds(5), "not deployed", first)).isTrue();

        OutboxRecord after = stored(record);
        assertThat(after.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(after.getRetryCount()).isZero();
        assertThat(after.getNextRetryAt()).isEqualTo(first.plusSeconds(5));
        assertThat(after.getLastError()).isEqualTo("not deployed");
        assertThat(after.getFirstDeferredAt()).isEqualTo(first);
        assertThat(after).usingRecursiveComparison().ignoringFields("nextRetryAt", "lastError", "firstDeferredAt")
                .isEqualTo(record);
        assertThat(stored(neighbour)).usingRecursiveComparison().isEqualTo(neighbour);

        clock.advance(Duration.ofHours(30));
        Instant later = clock.instant();
        assertThat(recordStore().defer(unfenced(after), later.plusSeconds(5), "still not deployed", later)).isTrue();
        assertThat(stored(record).getFirstDeferredAt()).as("a later deferral keeps the first").isEqualTo(first);
        assertThat(stored(record).getNextRetryAt()).isEqualTo(later.plusSeconds(5));

        OutboxRecord retried = stored(record).toBuilder().retryCount(1).build();
        assertThat(recordStore().defer(unfenced(retried), later, "x", later)).as("read with another retry count")
                .isFalse();
    }

    @Test
    public final void aCompletionOrARetryAfterAnAttemptClearsTheFirstDeferral() {
        OutboxRecord completed = saved(forHandler("A", "a1", "mailer"));
        OutboxRecord retried = saved(forHandler("B", "b1", "mailer"));
        OutboxRecord bulk1 = saved(forHandler("C", "c1", "mailer"));
        OutboxRecord bulk2 = saved(forHandler("D", "d1", "mailer"));
        for (OutboxRecord record : List.of(completed, retried, bulk1, bulk2)) {
            assertThat(recordStore().defer(unfenced(record), clock.instant(), "not deployed", clock.instant()))
                    .isTrue();
        }

        assertThat(recordStore().markCompleted(unfenced(stored(completed)), clock.instant())).isTrue();
        assertThat(recordStore().markCompleted(unfenced(stored(bulk1), stored(bulk2)), clock.instant())).isEmpty();
        assertThat(recordStore().scheduleRetry(unfenced(stored(retried)), 1, clock.instant(), "boom")).isTrue();

        assertThat(List.of(stored(completed), stored(bulk1), stored(bulk2), stored(retried)))
                .extracting(OutboxRecord::getFirstDeferredAt).containsOnlyNulls();
    }

    @Test
    public final void aFailedRecordKeepsItsFirstDeferralAndAnOperatorsRetryClearsIt() {
        OutboxRecord one = saved(forHandler("A", "a1", "mailer"));
        OutboxRecord all = saved(forHandler("B", "b1", "mailer"));
        Instant first = clock.instant();
        for (OutboxRecord record : List.of(one, all)) {
            assertThat(recordStore().defer(unfenced(record), first, "not deployed", first)).isTrue();
            assertThat(recordStore().markFailed(unfenced(stored(record)), 0, "waited too long")).isTrue();
            assertThat(stored(record).getFirstDeferredAt()).as("since when it waited").isEqualTo(first);
        }
        clock.advance(Duration.ofDays(2));

        assertThat(administration().retryFailed(one.getId(), clock.instant())).isTrue();
        assertThat(administration().retryAllFailed(FailedRecordFilter.any().withHandlerId("mailer"),
                clock.instant())).isEqualTo(1);

        assertThat(List.of(stored(one), stored(all))).allSatisfy(record -> {
            assertThat(record.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
            assertThat(record.getFirstDeferredAt()).as("a fresh deferral window").isNull();
        });
    }

    @Test
    public final void findDueLeavesOutTheRecordsOfSetAsideHandlersWithoutHoldingBackOtherHandlers() {
        OutboxRecord mail1 = saved(forHandler("A", "mail-1", "mailer"));
        saved(forHandler("A", "ledger-1", "ledger"));
        saved(forHandler("A", "mail-2", "mailer"));
        save("A", "unaddressed");
        assertThat(recordStore().defer(unfenced(mail1), clock.instant(), "not deployed", clock.instant())).isTrue();

        for (boolean headOfAggregateOnly : new boolean[] {true, false}) {
            assertThat(payloads(recordStore().findDue(new DueRecordsQuery(OwnedPartitions.all(), clock.instant(),
                    100, headOfAggregateOnly, Set.of("mailer"))).records())).containsExactly("ledger-1", "unaddressed");
            assertThat(payloads(recordStore().findDue(new DueRecordsQuery(OwnedPartitions.all(), clock.instant(),
                    100, headOfAggregateOnly, Set.of("", "ledger"))).records())).as("'' sets aside records of no handler")
                    .containsExactly("mail-1", "mail-2");
            assertThat(payloads(recordStore().findDue(new DueRecordsQuery(OwnedPartitions.all(), clock.instant(),
                    100, headOfAggregateOnly, Set.of())).records())).hasSize(4);
        }
    }

    @Test
    public final void findDeferralsDueFindsTheNeverDeferredAndTheExpiredHeadsOfTheGivenHandlersOnly() {
        OutboxRecord a1 = saved(forHandler("A", "a1", "mailer"));
        saved(forHandler("A", "a2", "mailer"));
        saved(forHandler("B", "b1", "mailer"));
        saved(forHandler("C", "c1", "ledger"));
        save("D", "d1");
        saved(OutboxRecord.builder().aggregateId("E").eventType("ContractEvent").payload("e1-ahead")
                .handlerId("mailer").deliverAfter(Duration.ofMinutes(5)).build(clock));
        Duration maxDeferral = Duration.ofHours(1);

        assertThat(findDeferralsDue(Set.of("mailer"), maxDeferral, true)).as("never deferred, heads only")
                .containsExactly("a1", "b1");
        assertThat(findDeferralsDue(Set.of(""), maxDeferral, true)).as("records of no handler").containsExactly("d1");

        Instant deferredAt = clock.instant();
        assertThat(recordStore().defer(unfenced(a1), deferredAt.plusSeconds(5), "not deployed", deferredAt)).isTrue();
        clock.advance(Duration.ofSeconds(5));
        assertThat(findDeferralsDue(Set.of("mailer"), maxDeferral, true))
                .as("a1 deferred a while ago is left alone, and a2 waits behind it").containsExactly("b1");
        assertThat(findDeferralsDue(Set.of("mailer"), maxDeferral, false)).containsExactly("a2", "b1");

        clock.set(deferredAt.plus(maxDeferral).minusNanos(1000));
        assertThat(findDeferralsDue(Set.of("mailer"), maxDeferral, true)).as("a microsecond early")
                .containsExactly("b1", "e1-ahead");
        clock.set(deferredAt.plus(maxDeferral));
        assertThat(findDeferralsDue(Set.of("mailer"), maxDeferral, true)).as("its wait ran out")
                .containsExactly("a1", "b1", "e1-ahead");
        assertThat(payloads(recordStore().findDeferralsDue(new DeferredRecordsQuery(OwnedPartitions.all(),
                Set.of("mailer"), clock.instant(), clock.instant().minus(maxDeferral), 2, true)).records()))
                .as("the limit, in sequence order").containsExactly("a1", "b1");
        assertThat(payloads(recordStore().findDeferralsDue(new DeferredRecordsQuery(
                OwnedPartitions.of(stored(a1).getPartition()), Set.of("mailer"), clock.instant(),
                clock.instant().minus(maxDeferral), 10, true)).records())).as("the partitions queried").contains("a1")
                .doesNotContain("b1").hasSizeLessThanOrEqualTo(2);

        assertThat(recordStore().markFailed(unfenced(stored(a1)), 0, "waited too long")).isTrue();
        assertThat(findDeferralsDue(Set.of("mailer"), maxDeferral, true)).as("a failed head holds its lane back")
                .containsExactly("b1", "e1-ahead");
    }

    private List<String> findDeferralsDue(Set<String> handlerIds, Duration maxDeferral, boolean headOfAggregateOnly) {
        return payloads(recordStore().findDeferralsDue(new DeferredRecordsQuery(OwnedPartitions.all(), handlerIds,
                clock.instant(), clock.instant().minus(maxDeferral), 100, headOfAggregateOnly)).records());
    }

    @Test
    public final void aDeferralUnderAnOlderEpochChangesNothing() {
        OutboxRecord record = saved(forHandler("fenced-d", "x", "mailer"));
        Fence first = claim(record, OWNER);
        Fence second = claim(record, OWNER);

        assertThat(recordStore().defer(Delivery.of(record, first), clock.instant(), "x", clock.instant())).isFalse();
        assertThat(stored(record).getFirstDeferredAt()).isNull();
        assertThat(recordStore().defer(Delivery.of(record, second), clock.instant(), "x", clock.instant())).isTrue();
        assertThat(stored(record).getFirstDeferredAt()).isEqualTo(clock.instant());
    }

    // ================================================================ the fence

    private static final String OWNER = "contract-owner";
    private static final String OTHER = "contract-other";

    /** Claims the record's partition for {@code owner} (no instance rows exist, so any owner is claimable). */
    private Fence claim(OutboxRecord record, String owner) {
        int partition = record.getPartition();
        PartitionState row = partitions().findAll().get(partition);
        assertThat(partitions().claim(partition, row.epoch(), owner, Duration.ofHours(1))).isTrue();
        return Fence.of(partition, row.epoch() + 1, owner);
    }

    private void release(Fence fence) {
        assertThat(partitions().release(fence.partition(), fence.epoch(), fence.owner())).isTrue();
    }

    @Test
    public final void theOwnerUnderTheCurrentEpochStoresEveryOutcome() {
        OutboxRecord completed = save("fenced-1", "c");
        OutboxRecord retried = save("fenced-1", "r");
        OutboxRecord failed = save("fenced-1", "f");
        Fence fence = claim(completed, OWNER);

        assertThat(recordStore().markCompleted(Delivery.of(completed, fence), clock.instant())).isTrue();
        assertThat(recordStore().scheduleRetry(Delivery.of(retried, fence), 1, clock.instant(), "once")).isTrue();
        assertThat(recordStore().markFailed(Delivery.of(failed, fence), 0, "poison")).isTrue();

        assertThat(stored(completed).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(stored(retried).getRetryCount()).isEqualTo(1);
        assertThat(stored(failed).getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
    }

    @Test
    public final void aWriteUnderAnOlderEpochChangesNothing() {
        OutboxRecord record = save("fenced-2", "x");
        Fence first = claim(record, OWNER);
        Fence second = claim(record, OWNER);
        assertThat(second.epoch()).isEqualTo(first.epoch() + 1);

        Delivery stale = Delivery.of(record, first);
        assertThat(recordStore().markCompleted(stale, clock.instant())).isFalse();
        assertThat(recordStore().scheduleRetry(stale, 1, clock.instant(), "boom")).isFalse();
        assertThat(recordStore().markFailed(stale, 0, "boom")).isFalse();
        assertThat(recordStore().deleteCompleted(stale)).isFalse();

        OutboxRecord unchanged = stored(record);
        assertThat(unchanged.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(unchanged.getRetryCount()).isZero();
        assertThat(unchanged.getLastError()).isNull();
    }

    @Test
    public final void aWriteAfterAnotherOwnerTookThePartitionOverChangesNothing() {
        OutboxRecord record = save("fenced-3", "x");
        Fence ours = claim(record, OWNER);
        release(ours);
        Fence theirs = claim(record, OTHER);

        assertThat(recordStore().markCompleted(Delivery.of(record, ours), clock.instant())).isFalse();
        assertThat(recordStore().scheduleRetry(Delivery.of(record, ours), 1, clock.instant(), "x")).isFalse();
        assertThat(recordStore().markCompleted(
                Delivery.of(record, Fence.of(record.getPartition(), theirs.epoch(), OWNER)), clock.instant()))
                .as("the current epoch, but not the current owner").isFalse();
        assertThat(stored(record).getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(recordStore().markCompleted(Delivery.of(record, theirs), clock.instant())).isTrue();
    }

    @Test
    public final void aReleasedPartitionFencesItsFormerOwner() {
        OutboxRecord record = save("fenced-4", "x");
        Fence ours = claim(record, OWNER);
        release(ours);

        assertThat(recordStore().markFailed(Delivery.of(record, ours), 0, "x")).isFalse();
        assertThat(stored(record).getStatus()).isEqualTo(OutboxRecordStatus.NEW);
    }

    @Test
    public final void anUnfencedDeliveryIsNotCheckedAgainstThePartitionTable() {
        OutboxRecord record = save("fenced-5", "x");
        claim(record, OTHER);

        assertThat(recordStore().markCompleted(unfenced(record), clock.instant())).isTrue();
        assertThat(stored(record).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
    }

    @Test
    public final void aWriteOfSeveralRecordsFencesEachOnItsOwnPartitionAndEpoch() {
        OutboxRecord current = save(AggregateIds.inPartition(10, "fenced"), "current");
        OutboxRecord staleEpoch = save(AggregateIds.inPartition(11, "fenced"), "stale epoch");
        OutboxRecord takenOver = save(AggregateIds.inPartition(12, "fenced"), "taken over");
        OutboxRecord retriedMeanwhile = save(AggregateIds.inPartition(13, "fenced"), "retried meanwhile");
        OutboxRecord unfenced = save(AggregateIds.inPartition(14, "fenced"), "unfenced");
        Fence currentFence = claim(current, OWNER);
        Fence firstEpoch = claim(staleEpoch, OWNER);
        claim(staleEpoch, OWNER);
        Fence lost = claim(takenOver, OWNER);
        release(lost);
        claim(takenOver, OTHER);
        Fence retriedFence = claim(retriedMeanwhile, OWNER);
        assertThat(recordStore().scheduleRetry(Delivery.of(retriedMeanwhile, retriedFence), 1, clock.instant(),
                "boom")).isTrue();
        List<Delivery> delivered = List.of(Delivery.of(current, currentFence), Delivery.of(staleEpoch, firstEpoch),
                Delivery.of(takenOver, lost), Delivery.of(retriedMeanwhile, retriedFence), unfenced(unfenced));

        List<Delivery> notChanged = recordStore().markCompleted(delivered, clock.instant());

        assertThat(notChanged).extracting(Delivery::id)
                .containsExactlyInAnyOrder(staleEpoch.getId(), takenOver.getId(), retriedMeanwhile.getId());
        assertThat(List.of(current, unfenced)).allSatisfy(record ->
                assertThat(stored(record).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED));
        assertThat(List.of(staleEpoch, takenOver, retriedMeanwhile)).allSatisfy(record ->
                assertThat(stored(record).getStatus()).isEqualTo(OutboxRecordStatus.NEW));
    }

    @Test
    public final void aDeleteOfSeveralRecordsFencesEachOnItsOwnPartitionAndEpoch() {
        OutboxRecord current = save(AggregateIds.inPartition(20, "fenced"), "current");
        OutboxRecord staleEpoch = save(AggregateIds.inPartition(21, "fenced"), "stale epoch");
        Fence currentFence = claim(current, OWNER);
        Fence firstEpoch = claim(staleEpoch, OWNER);
        claim(staleEpoch, OWNER);

        List<Delivery> notDeleted = recordStore().deleteCompleted(
                List.of(Delivery.of(current, currentFence), Delivery.of(staleEpoch, firstEpoch)));

        assertThat(notDeleted).extracting(Delivery::id).containsExactly(staleEpoch.getId());
        assertThat(repository().findById(current.getId())).isEmpty();
        assertThat(stored(staleEpoch).getStatus()).isEqualTo(OutboxRecordStatus.NEW);
    }

    // ================================================================ content fidelity

    @Test
    public final void aOneMebibytePayloadRoundTripsUnchanged() {
        String payload = oneMebibyteOfMixedText();
        assertThat(payload.getBytes(StandardCharsets.UTF_8)).hasSize(MIB);

        OutboxRecord record = save("big", payload);

        assertThat(record.getPayload()).isEqualTo(payload);
        assertThat(recordStore().findDue(new DueRecordsQuery(OwnedPartitions.all(), clock.instant(), 1, true)).records())
                .singleElement().extracting(OutboxRecord::getPayload).isEqualTo(payload);
    }

    private static String oneMebibyteOfMixedText() {
        String segment = "{\"name\":\"Grüße aus Zürich\",\"city\":\"東京\",\"mood\":\"😀🎉\",\"n\":12345} ";
        int segmentBytes = segment.getBytes(StandardCharsets.UTF_8).length;
        StringBuilder text = new StringBuilder();
        int bytes = 0;
        while (bytes + segmentBytes <= MIB) {
            text.append(segment);
            bytes += segmentBytes;
        }
        text.append("x".repeat(MIB - bytes));
        return text.toString();
    }

    @Test
    public final void nonAsciiTextRoundTripsUnchanged() {
        Map<String, String> samples = Map.of(
                "客户-😀-Ünïcødé", "{\"text\":\"Привет, 世界! 👋🏽 مرحبا עולם\"}",
                "𠜎𠜱𠝹-supplementary-cjk", "e\u0301 ﬁ ß Ω ≠ ∞ 🇨🇭 👩‍👩‍👧 中文 日本語 한국어",
                "plain-ascii", "tab\tnewline\nquote\" backslash\\ apostrophe' <tag>&amp;");
        samples.forEach((aggregateId, payload) -> {
            OutboxRecord record = OutboxRecord.builder().aggregateId(aggregateId).eventType("Ereignis.Größe.変更")
                    .payload(payload).build(clock);
            OutboxRecord found = saved(record);
            assertThat(found.getAggregateId()).isEqualTo(aggregateId);
            assertThat(found.getEventType()).isEqualTo("Ereignis.Größe.変更");
            assertThat(found.getPayload()).isEqualTo(payload);
            assertThat(found.getPartition()).isEqualTo(PartitionHasher.partitionOf(aggregateId));
            assertThat(payloads(repository().findByAggregateId(aggregateId))).containsExactly(payload);
            assertThat(findDue(OwnedPartitions.of(record.getPartition()), 100, true)).contains(payload);
        });
    }

    @Test
    public final void aLastErrorOfExactlyTheMaximumLengthRoundTrips() {
        String error = ("java.net.ConnectException: Verbindung verweigert – 接続が拒否されました; ")
                .repeat(100).substring(0, OutboxRecord.MAX_ERROR_LENGTH);
        assertThat(error).hasSize(2000);
        OutboxRecord retried = save("A", "a1");
        OutboxRecord failed = save("B", "b1");

        assertThat(recordStore().scheduleRetry(unfenced(retried), 1, clock.instant(), error)).isTrue();
        assertThat(recordStore().markFailed(unfenced(failed), 0, error)).isTrue();

        assertThat(stored(retried).getLastError()).isEqualTo(error);
        assertThat(stored(failed).getLastError()).isEqualTo(error);
    }
}
