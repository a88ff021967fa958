package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.admin.FailedRecordPage;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.jdbc.testing.JdbcOutboxFixture;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.metrics.MicrometerOutboxListener;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.monitoring.OutboxSnapshot;
import dev.outbox.node.OutboxNode;
import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.spi.FailedRecordOrder;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.UnreadableRow;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 29, poison rows: a row inserted by SQL, a migration or an older version that the engine cannot place or read
 * is isolated to itself. It is marked FAILED with an error naming it and what is wrong (or, when no write can reach
 * it, left and reported), counted in {@code outbox.records.poison}, listed among the FAILED rows, and never stops the
 * other lanes or partitions: every good record beside it completes. One subclass per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractPoisonRowTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final int GOOD_RECORDS = 24;

    private JdbcOutboxFixture fixture;
    private final Set<String> handled = ConcurrentHashMap.newKeySet();

    protected abstract TestDatabase.Kind databaseKind();

    @BeforeAll
    final void createDatabase() {
        fixture = JdbcOutboxFixture.create(databaseKind(), OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES);
        // A schema as a migration or a hand-made table may leave it: these columns take NULL.
        for (String column : List.of("event_type", "payload", "created_at")) {
            fixture.jdbc().execute(dropNotNull(column));
        }
    }

    @AfterAll
    final void dropDatabase() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @BeforeEach
    final void emptyTable() {
        fixture.deleteAllRecords();
        handled.clear();
    }

    @Test
    void aRowWhosePartitionIsNotItsAggregatesIsFailedByTheOwnerOfItsStoredPartition() {
        String aggregateId = "poison-misplaced";
        int hashed = PartitionHasher.partitionOf(aggregateId);
        int stored = (hashed + 1) % PartitionHasher.PARTITION_COUNT;
        String id = insert(row(aggregateId).partition(stored));

        Counter poison = runBesideGoodRecords(id, "misplaced", "failed");

        assertFailed(id, "partition_no is " + stored + " but aggregate_id 'poison-misplaced' hashes to partition "
                + hashed, UnreadableRow.Problem.MISPLACED);
        assertThat(poison.count()).isEqualTo(1);
    }

    @Test
    void aRowWithABlankAggregateIdIsFailed() {
        String id = insert(row("").partition(PartitionHasher.partitionOf("")));

        Counter poison = runBesideGoodRecords(id, "missing_value", "failed");

        assertFailed(id, "aggregate_id is blank", UnreadableRow.Problem.MISSING_VALUE);
        assertThat(poison.count()).isEqualTo(1);
    }

    @Test
    void aRowWithoutEventTypeIsFailed() {
        String id = insert(row("poison-no-event-type").eventType(null));

        Counter poison = runBesideGoodRecords(id, "missing_value", "failed");

        assertFailed(id, "event_type is NULL", UnreadableRow.Problem.MISSING_VALUE);
        assertThat(poison.count()).isEqualTo(1);
    }

    @Test
    void aRowWithoutPayloadIsFailed() {
        String id = insert(row("poison-no-payload").payload(null));

        Counter poison = runBesideGoodRecords(id, "missing_value", "failed");

        assertFailed(id, "payload is NULL", UnreadableRow.Problem.MISSING_VALUE);
        assertThat(poison.count()).isEqualTo(1);
    }

    @Test
    void aRowWithoutCreationTimeIsFailed() {
        String id = insert(row("poison-no-created-at").withoutCreatedAt());

        Counter poison = runBesideGoodRecords(id, "missing_value", "failed");

        assertFailed(id, "created_at is NULL", UnreadableRow.Problem.MISSING_VALUE);
        assertThat(poison.count()).isEqualTo(1);
    }

    @Test
    void aRowWithUnreadableHeadersIsFailedRatherThanHandedOverWithoutThem() {
        String id = insert(row("poison-headers").headers("tenant=acme&%zz=1"));

        Counter poison = runBesideGoodRecords(id, "unreadable_value", "failed");

        assertFailed(id, "headers cannot be read: '%zz=1' is not a URL-encoded name=value pair",
                UnreadableRow.Problem.UNREADABLE_VALUE);
        assertThat(poison.count()).isEqualTo(1);
    }

    /**
     * A status none of the library's, written by SQL, is failed like the other poison rows on every database: MariaDB
     * compares text without regard to case, so its due fetch reads 'new' as NEW; PostgreSQL and H2 never read it as
     * due, and the processor's look for unknown statuses finds it. The record statistics still answer.
     */
    @Test
    void aRowWithAnUnknownStatusIsFailedAndNeverStopsProcessingNorTheStatistics() {
        String id = insert(row("poison-status").status("new"));

        Counter poison = runBesideGoodRecords(id, "unknown_status", "failed");

        assertFailed(id, "status is 'new', none of [NEW, COMPLETED, FAILED, SKIPPED]",
                UnreadableRow.Problem.UNKNOWN_STATUS);
        assertThat(poison.count()).isEqualTo(1);
        assertThat(fixture.recordStore().countByStatus()).containsEntry(OutboxRecordStatus.COMPLETED,
                (long) GOOD_RECORDS);
    }

    /**
     * Before the processor fails them, rows of an unknown status are counted by their status as stored (for the
     * monitor, the metrics and {@code /actuator/outbox}), apart from the known statuses even where text compares
     * without regard to case, and the look for unknown statuses finds those no due fetch reads, in the owned
     * partitions only.
     */
    @Test
    void rowsOfAnUnknownStatusAreCountedAsStoredAndFoundByTheLook() {
        String lowerCase = insert(row("poison-lower-case").status("new"));
        String other = insert(row("poison-other").status("DONE"));
        fixture.repository().save(OutboxRecord.builder().aggregateId("good").eventType("Good").payload("{}")
                .build(Clock.systemUTC()));

        assertThat(fixture.recordStore().countByStoredStatus()).containsOnly(Map.entry("NEW", 1L),
                Map.entry("new", 1L), Map.entry("DONE", 1L));
        assertThat(fixture.recordStore().countByStatus()).containsOnly(Map.entry(OutboxRecordStatus.NEW, 1L));
        OutboxSnapshot snapshot = OutboxMonitor.builder().statistics(fixture.recordStore()).build().refresh();
        assertThat(snapshot.unknownStatusCounts()).containsExactly(Map.entry("DONE", 1L), Map.entry("new", 1L));
        assertThat(snapshot.recordCount(OutboxRecordStatus.NEW)).isEqualTo(1);

        FetchedRows found = fixture.recordStore().findUnknownStatusRows(OwnedPartitions.all(), 10);
        assertThat(found.records()).isEmpty();
        assertThat(found.unreadable()).allSatisfy(row -> assertThat(row.problem())
                .isEqualTo(UnreadableRow.Problem.UNKNOWN_STATUS));
        assertThat(found.unreadable()).map(UnreadableRow::id).as("in sequence order").containsExactlyElementsOf(
                databaseKind() == TestDatabase.Kind.MARIADB ? List.of(other) : List.of(lowerCase, other));
        int elsewhere = (PartitionHasher.partitionOf("poison-other") + 1) % PartitionHasher.PARTITION_COUNT;
        assertThat(fixture.recordStore().findUnknownStatusRows(OwnedPartitions.of(elsewhere), 10).unreadable())
                .as("not in the owned partitions").isEmpty();
    }

    /**
     * The monitor's count without COMPLETED: every other status as stored, unknown ones too, the same as the whole
     * count but for COMPLETED. MariaDB compares text without regard to case, so there 'Completed' is left out with it.
     */
    @Test
    void theCountWithoutCompletedHasEveryOtherStatusAsStored() {
        insert(row("done-1").status("COMPLETED"));
        insert(row("done-2").status("COMPLETED"));
        insert(row("poison-completed").status("Completed"));
        insert(row("poison-lower-case").status("new"));
        insert(row("skipped").status("SKIPPED"));
        fixture.repository().save(OutboxRecord.builder().aggregateId("good").eventType("Good").payload("{}")
                .build(Clock.systemUTC()));

        assertThat(fixture.recordStore().countByStoredStatus()).containsOnly(Map.entry("COMPLETED", 2L),
                Map.entry("Completed", 1L), Map.entry("new", 1L), Map.entry("SKIPPED", 1L), Map.entry("NEW", 1L));
        Map<String, Long> exceptCompleted = fixture.recordStore().countByStoredStatusExceptCompleted();
        if (databaseKind() == TestDatabase.Kind.MARIADB) {
            assertThat(exceptCompleted).containsOnly(Map.entry("new", 1L), Map.entry("SKIPPED", 1L),
                    Map.entry("NEW", 1L));
        } else {
            assertThat(exceptCompleted).containsOnly(Map.entry("Completed", 1L), Map.entry("new", 1L),
                    Map.entry("SKIPPED", 1L), Map.entry("NEW", 1L));
        }
    }

    @Test
    void aRowThatNoOwnerCanFailIsSkippedAndReportedOnce() {
        String id = insert(row("poison-out-of-range").partition(300));

        Counter poison = runBesideGoodRecords(id, "misplaced", "skipped");

        assertThat(status(id)).as("left as it is").isEqualTo("NEW");
        assertThat(poison.count()).as("reported once, though read by every fetch").isEqualTo(1);
    }

    @Test
    void aStaleOwnerNeverFailsAnUnreadableRow() {
        String aggregateId = "poison-fenced";
        int stored = (PartitionHasher.partitionOf(aggregateId) + 7) % PartitionHasher.PARTITION_COUNT;
        String id = insert(row(aggregateId).partition(stored));
        // No instance owns the partition under this epoch: a writer that lost it, or never had it.
        OwnedPartitions stale = OwnedPartitions.fenced("stale-owner", Map.of(stored, 41L));

        FetchedRows read = fixture.recordStore().findDue(new DueRecordsQuery(stale, Instant.now().plusSeconds(1),
                10, true));

        assertThat(read.records()).isEmpty();
        UnreadableRow row = read.unreadable().get(0);
        assertThat(row.id()).isEqualTo(id);
        assertThat(fixture.recordStore().failUnreadable(row, stale.fenceOf(stored), "stale")).isFalse();
        assertThat(status(id)).isEqualTo("NEW");
        assertThat(fixture.recordStore().failUnreadable(row, Fence.unfenced(stored), "unfenced")).isTrue();
        assertThat(status(id)).isEqualTo("FAILED");
    }

    /**
     * Writes good records of other aggregates (over many partitions) and runs a node owning every partition until they
     * are all completed and the poison row is settled; returns the poison counter of {@code problem} and
     * {@code outcome}.
     */
    private Counter runBesideGoodRecords(String poisonId, String problem, String outcome) {
        List<String> good = new ArrayList<>();
        for (int i = 0; i < GOOD_RECORDS; i++) {
            good.add(fixture.repository().save(OutboxRecord.builder().aggregateId("good-" + (i % 12))
                    .eventType("Good").payload(Integer.toString(i)).build(Clock.systemUTC())).getId());
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        JdbcOutboxStores stores = JdbcOutboxStores.create(fixture.database().dataSource());
        OutboxNode node = OutboxNode.builder()
                .processor(OutboxProcessor.builder().recordStore(stores.records())
                        .handler(record -> handled.add(record.getId()))
                        .listener(new MicrometerOutboxListener(registry)))
                .cluster(stores.cluster("poison-" + UUID.randomUUID()))
                .build();
        node.start();
        try {
            await().atMost(DEADLINE).untilAsserted(() -> {
                assertThat(handled).containsAll(good);
                assertThat(good).allSatisfy(id -> assertThat(status(id)).isEqualTo("COMPLETED"));
            });
            // Settled: FAILED, or reported when skipped.
            await().atMost(DEADLINE).until(() -> "failed".equals(outcome) ? "FAILED".equals(status(poisonId))
                    : registry.find("outbox.records.poison").counter() != null);
        } finally {
            node.close();
            stores.close();
        }
        assertThat(handled).as("never handed to a handler").doesNotContain(poisonId);
        Counter counter = registry.find("outbox.records.poison").tag("problem", problem).tag("outcome", outcome)
                .counter();
        return counter != null ? counter : registry.counter("absent");
    }

    private void assertFailed(String id, String what, UnreadableRow.Problem problem) {
        assertThat(status(id)).isEqualTo("FAILED");
        String error = fixture.jdbc().queryForObject("SELECT last_error FROM outbox_record WHERE id = ?",
                String.class, id);
        assertThat(error).contains("Unreadable outbox row " + id).contains(what);
        // The operator's listing shows it with what could be read, and the error.
        FetchedRows failed = fixture.recordStore().findFailedRows(FailedRecordFilter.any(), 20);
        // A console's page of them too, with a cursor past it, and the count of a bulk action.
        OutboxAdmin admin = OutboxAdmin.builder().store(fixture.recordStore()).build();
        FailedRecordPage page = admin.failedPage(FailedRecordFilter.any(), FailedRecordOrder.NEWEST_FIRST, null, 1);
        assertThat(page.rows().size()).isOne();
        assertThat(page.records().size()).isEqualTo(failed.records().size());
        assertThat(admin.failedPage(FailedRecordFilter.any(), FailedRecordOrder.NEWEST_FIRST,
                Objects.requireNonNull(page.nextCursor()), 1).rows().size()).isZero();
        assertThat(admin.countFailed(FailedRecordFilter.any())).isOne();
        if (problem == UnreadableRow.Problem.UNKNOWN_STATUS) {
            // Its status was all that was wrong with it: FAILED now, it reads as a record.
            assertThat(failed.records()).singleElement().satisfies(record -> {
                assertThat(record.getId()).isEqualTo(id);
                assertThat(record.getLastError()).isEqualTo(error);
            });
            return;
        }
        assertThat(failed.unreadable()).singleElement().satisfies(row -> {
            assertThat(row.id()).isEqualTo(id);
            assertThat(row.problem()).isEqualTo(problem);
            assertThat(row.lastError()).isEqualTo(error);
        });
        assertThat(failed.records()).isEmpty();
        assertThat(fixture.recordStore().findFailed(FailedRecordFilter.any(), 20)).as("left out, not failing the read")
                .isEmpty();
    }

    private @Nullable String status(String id) {
        return fixture.jdbc().queryForObject("SELECT status FROM outbox_record WHERE id = ?", String.class, id);
    }

    private String dropNotNull(String column) {
        if (databaseKind() != TestDatabase.Kind.MARIADB) {
            return "ALTER TABLE outbox_record ALTER COLUMN " + column + " DROP NOT NULL";
        }
        String type = switch (column) {
            case "payload" -> "LONGTEXT";
            case "created_at" -> "DATETIME(6)";
            default -> "VARCHAR(255)";
        };
        return "ALTER TABLE outbox_record MODIFY " + column + " " + type + " NULL";
    }

    private static PoisonRow row(String aggregateId) {
        return new PoisonRow(UUID.randomUUID().toString(), aggregateId);
    }

    private String insert(PoisonRow row) {
        Instant now = Instant.now().minusSeconds(1);
        Object at = fixture.sql().dialect().timestampValue(now);
        fixture.jdbc().update("INSERT INTO outbox_record (id, status, aggregate_id, event_type, payload, partition_no,"
                + " created_at, retry_count, next_retry_at, handler_id, headers) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, '', ?)",
                row.id, row.status, row.aggregateId, row.eventType, row.payload, row.partition,
                row.createdAt ? at : null, at, row.headers);
        return row.id;
    }

    /** The values of a row written by plain SQL; good ones unless a test spoils one. */
    private static final class PoisonRow {
        final String id;
        final String aggregateId;
        String status = "NEW";
        @Nullable String eventType = "Poison";
        @Nullable String payload = "{}";
        int partition;
        boolean createdAt = true;
        @Nullable String headers;

        PoisonRow(String id, String aggregateId) {
            this.id = id;
            this.aggregateId = aggregateId;
            this.partition = PartitionHasher.partitionOf(aggregateId);
        }

        PoisonRow partition(int partition) {
            this.partition = partition;
            return this;
        }

        PoisonRow status(String status) {
            this.status = status;
            return this;
        }

        PoisonRow eventType(@Nullable String eventType) {
            this.eventType = eventType;
            return this;
        }

        PoisonRow payload(@Nullable String payload) {
            this.payload = payload;
            return this;
        }

        PoisonRow withoutCreatedAt() {
            this.createdAt = false;
            return this;
        }

        PoisonRow headers(String headers) {
            this.headers = headers;
            return this;
        }
    }
}
