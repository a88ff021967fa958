package dev.outbox.jdbc;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.retention.OutboxPurger;
import dev.outbox.spi.DeferredRecordsQuery;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.DueRecordsQuery;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import javax.sql.DataSource;

/**
 * The statements of the engine's hot path exactly as the stores render and bind them (the stores' own
 * {@code …Statement} methods), with the values a draining engine gives them: a batch of 100 deliveries under the fence
 * of a clustered node, the fetches of all partitions and of half of them. instance.findLive is not among them: the
 * instance table holds a row per live instance, and reading it whole is its best plan.
 */
final class HotStatements {

    /** How the statement must reach the record table, whatever the statistics. */
    enum Access {
        /** By the primary key only: the statement names its rows by id, so it never reads other rows. */
        BY_KEY,
        /** By the primary key, for each key of a batch (the bulk writes). */
        BY_KEYS,
        /** Through an index, never by reading the whole table. */
        INDEXED
    }

    /**
     * One statement to explain; {@code name} says which and with what. {@code access} is how it must reach
     * {@code table}, which its SQL may also name by the {@code aliases}.
     */
    record Hot(String name, String table, Set<String> aliases, Access access, BoundStatement statement) {

        static Hot onRecords(String name, Access access, BoundStatement statement) {
            return new Hot(name, AbstractStatementPlanTest.RECORD_TABLE, Set.of("r", "p", "purged"), access, statement);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static final int BATCH = 100;
    static final String OWNER = "node-1";
    static final String MISSING_HANDLER = "missing-handler";

    private HotStatements() {
    }

    /**
     * The hot statements on these tables. {@code ids} are ids of records in the table (the deliveries'), at least
     * {@link #BATCH} of them.
     */
    static List<Hot> of(DataSource dataSource, SqlStatements sql, List<String> ids) {
        JdbcRecordStore records = new JdbcRecordStore(dataSource, sql);
        JdbcPartitionStore partitions = new JdbcPartitionStore(dataSource, sql);
        Instant now = Instant.now();
        List<Delivery> batch = ids.stream().limit(BATCH).map(id -> delivery(id, now)).toList();
        Delivery one = batch.get(0);
        OwnedPartitions half = OwnedPartitions.of(IntStream.range(0, 128).toArray());

        List<Hot> hot = new ArrayList<>();
        for (boolean headOfAggregate : new boolean[] {true, false}) {
            String order = headOfAggregate ? "headOfAggregate" : "any";
            hot.add(Hot.onRecords("record.findDue." + order + " (all partitions)", Access.INDEXED,
                    records.findDueStatement(new DueRecordsQuery(OwnedPartitions.all(), now, BATCH, headOfAggregate))));
            hot.add(Hot.onRecords("record.findDue." + order + " (128 partitions, a handler set aside)", Access.INDEXED,
                    records.findDueStatement(new DueRecordsQuery(half, now, BATCH, headOfAggregate,
                            Set.of(MISSING_HANDLER)))));
            hot.add(Hot.onRecords("record.findDue." + order + " (from a floor, as under bloat)", Access.INDEXED,
                    records.findDueStatement(new DueRecordsQuery(OwnedPartitions.all(), now, BATCH, headOfAggregate,
                            Set.of(), 1L))));
            hot.add(Hot.onRecords("record.findDeferralsDue." + order + " (128 partitions)", Access.INDEXED,
                    records.findDeferralsDueStatement(new DeferredRecordsQuery(half, Set.of(MISSING_HANDLER), now,
                            now.minus(Duration.ofHours(1)), BATCH, headOfAggregate))));
        }
        hot.add(Hot.onRecords("record.markCompleted", Access.BY_KEY, records.markCompletedStatement(one, now)));
        hot.add(Hot.onRecords("record.deleteCompleted", Access.BY_KEY, records.deleteCompletedStatement(one)));
        hot.add(Hot.onRecords("record.scheduleRetry", Access.BY_KEY,
                records.scheduleRetryStatement(one, 1, now.plusSeconds(5), "boom")));
        hot.add(Hot.onRecords("record.defer", Access.BY_KEY,
                records.deferStatement(one, now.plusSeconds(5), "no handler", now)));
        hot.add(Hot.onRecords("record.markFailed", Access.BY_KEY, records.markFailedStatement(one, 3, "boom")));
        if (sql.find("record.markCompleted.bulk").isPresent()) {
            hot.add(Hot.onRecords("record.markCompleted.bulk (" + BATCH + " deliveries)", Access.BY_KEYS,
                    records.markCompletedBulkStatement(batch, now)));
        }
        if (sql.find("record.deleteCompleted.bulk").isPresent()) {
            hot.add(Hot.onRecords("record.deleteCompleted.bulk (" + BATCH + " deliveries)", Access.BY_KEYS,
                    records.deleteCompletedBulkStatement(batch)));
        }
        if (sql.find("record.deleteCompleted.marked").isPresent()) {
            hot.add(Hot.onRecords("record.deleteCompleted.marked", Access.BY_KEY,
                    records.deleteMarkedCompletedStatement(one)));
        }
        hot.add(Hot.onRecords("record.purge", Access.INDEXED, records.purgeStatement(OwnedPartitions.all(),
                OutboxRecordStatus.COMPLETED, now.minus(Duration.ofDays(7)), OutboxPurger.Builder.DEFAULT_BATCH_SIZE)));
        hot.add(Hot.onRecords("record.countByStatusExceptCompleted", Access.INDEXED,
                records.countExceptCompletedStatement()));
        hot.add(new Hot("partition.claim", AbstractStatementPlanTest.PARTITION_TABLE, Set.of("p"), Access.BY_KEY,
                partitions.claimStatement(7, 0, OWNER, now.minusSeconds(30))));
        return hot;
    }

    /** A NEW record as a node read it, delivered under the fence of its partition. */
    private static Delivery delivery(String id, Instant now) {
        String aggregateId = "order-1";
        int partition = PartitionHasher.partitionOf(aggregateId);
        OutboxRecord record = OutboxRecord.restore().id(id).sequence(1L).status(OutboxRecordStatus.NEW)
                .aggregateId(aggregateId).eventType("OrderPlaced").payload("{}").partition(partition).createdAt(now)
                .retryCount(0).nextRetryAt(now).build();
        return new Delivery(record, new Fence(partition, 1, OWNER));
    }
}
