package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.processing.HandlerRoute;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.processing.ProcessingOptions;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.FetchedRows;
import dev.outbox.testing.ForwardingRecordStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A large deferred backlog (records of a handler this instance lacks, as an old version sees them during a rolling
 * deploy) takes none of the due fetch's places ahead of the records the instance can process, and each deferred
 * record is written once, not again every deferral interval. Counts, not timings: the local PostgreSQL runs with
 * autovacuum off and the test never analyzes the table, so the plans are the ones of a table without fresh statistics.
 */
class PostgresDeferredBacklogTest {

    private static final int DEFERRED = 10_000;
    private static final int PROCESSABLE = 10_000;
    private static final int PROCESSABLE_AGGREGATES = 1_000;
    private static final Duration DEADLINE = Duration.ofMinutes(5);
    /** Short, so that a store rewriting deferred records every interval does it many times within the run. */
    private static final Duration DEFERRAL_INTERVAL = Duration.ofSeconds(1);

    @Test
    void aDeferredBacklogTakesNoPlaceInTheDueFetchAndEachDeferredRecordIsWrittenOnce() throws Exception {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRES)) {
            OutboxSchemaInitializer.apply(db.dataSource());
            JdbcTemplate jdbc = new JdbcTemplate(db.dataSource());
            // The deferred ones first: older, so that a fetch in sequence order meets them before the others.
            insert(db, "mailer", DEFERRED, DEFERRED);
            insert(db, "ledger", PROCESSABLE, PROCESSABLE_AGGREGATES);

            WatchedStore store = new WatchedStore(new JdbcRecordStore(db.dataSource(), DatabaseDialect.POSTGRESQL));
            ProcessingOptions options = ProcessingOptions.defaults().withDeferralInterval(DEFERRAL_INTERVAL);
            AtomicInteger handled = new AtomicInteger();
            HandlerRoute ledger = HandlerRoute.to(record -> handled.incrementAndGet());
            OutboxProcessor processor = OutboxProcessor.builder().recordStore(store).options(options)
                    .routes(record -> "ledger".equals(record.getHandlerId()) ? ledger
                            : HandlerRoute.notDeployed("record " + record.getId() + " is addressed to handler '"
                                    + record.getHandlerId() + "', which this instance does not have"))
                    .build();
            int limit = options.batchSize() + options.batchSize() / 2;
            processor.start();
            try {
                // Stop at once, rather than at the deadline, once deferred records crowd the fetch or are rewritten.
                await().atMost(DEADLINE)
                        .failFast("the due fetch hands out deferred records batch after batch",
                                () -> store.deferredHandedOutByDueFetch.get() > limit)
                        .failFast("a deferred record is written again", () -> mostWrites(store.deferralWrites
                                .values()) > 1)
                        .until(() -> count(jdbc, "handler_id = 'ledger' AND status = 'COMPLETED'") == PROCESSABLE
                                && count(jdbc, "handler_id = 'mailer' AND first_deferred_at IS NOT NULL")
                                == DEFERRED);
            } finally {
                processor.close();
            }

            assertThat(handled.get()).isEqualTo(PROCESSABLE);
            assertThat(store.deferredHandedOutByDueFetch.get())
                    .as("deferred records the due fetch handed out: one batch at most, before the instance knew "
                            + "it lacks their handler (%d fetches in all)", store.dueFetches.get())
                    .isLessThanOrEqualTo(limit);
            assertThat(store.deferralWrites.size()).as("deferred records written").isEqualTo(DEFERRED);
            assertThat(mostWrites(store.deferralWrites.values())).as("writes of the most written deferred record")
                    .isEqualTo(1);
            assertThat(count(jdbc, "handler_id = 'mailer' AND status = 'NEW' AND retry_count = 0 "
                    + "AND last_error LIKE '%handler ''mailer''%'")).as("deferred, no attempt used").isEqualTo(DEFERRED);
        }
    }

    /** {@code records} records for {@code handlerId}, round-robin over {@code aggregates} aggregates. */
    private static void insert(TestDatabase db, String handlerId, int records, int aggregates) throws Exception {
        Timestamp now = Timestamp.from(Instant.now().minusSeconds(1));
        try (Connection connection = db.dataSource().getConnection(); PreparedStatement insert =
                connection.prepareStatement("INSERT INTO outbox_record (id, status, aggregate_id, event_type, "
                        + "payload, partition_no, created_at, next_retry_at, handler_id) "
                        + "VALUES (?, 'NEW', ?, 'OrderPlaced', '{}', ?, ?, ?, ?)")) {
            for (int i = 0; i < records; i++) {
                String aggregateId = handlerId + "-" + (i % aggregates);
                insert.setString(1, handlerId + "-record-" + i);
                insert.setString(2, aggregateId);
                insert.setInt(3, PartitionHasher.partitionOf(aggregateId));
                insert.setTimestamp(4, now);
                insert.setTimestamp(5, now);
                insert.setString(6, handlerId);
                insert.addBatch();
                if (i % 1_000 == 999) {
                    insert.executeBatch();
                }
            }
            insert.executeBatch();
        }
    }

    private static long count(JdbcTemplate jdbc, String where) {
        Long count = jdbc.queryForObject("SELECT COUNT(*) FROM outbox_record WHERE " + where, Long.class);
        return count == null ? 0 : count;
    }

    private static int mostWrites(Collection<AtomicInteger> writes) {
        return writes.stream().mapToInt(AtomicInteger::get).max().orElse(0);
    }

    /** Counts the due fetches, the deferred records they hand out, and the writes of each deferred record. */
    private static final class WatchedStore extends ForwardingRecordStore {

        final AtomicInteger dueFetches = new AtomicInteger();
        final AtomicInteger deferredHandedOutByDueFetch = new AtomicInteger();
        final Map<String, AtomicInteger> deferralWrites = new ConcurrentHashMap<>();

        WatchedStore(JdbcRecordStore delegate) {
            super(delegate);
        }

        @Override
        public FetchedRows findDue(DueRecordsQuery query) {
            FetchedRows due = super.findDue(query);
            dueFetches.incrementAndGet();
            deferredHandedOutByDueFetch.addAndGet((int) due.records().stream()
                    .filter(record -> "mailer".equals(record.getHandlerId())).count());
            return due;
        }

        @Override
        public boolean defer(Delivery delivery, Instant nextAttemptAt, String lastError, Instant deferredAt) {
            written(delivery);
            return super.defer(delivery, nextAttemptAt, lastError, deferredAt);
        }

        @Override
        public boolean scheduleRetry(Delivery delivery, int retryCount, Instant nextRetryAt, String lastError) {
            written(delivery);
            return super.scheduleRetry(delivery, retryCount, nextRetryAt, lastError);
        }

        private void written(Delivery delivery) {
            if ("mailer".equals(delivery.record().getHandlerId())) {
                deferralWrites.computeIfAbsent(delivery.id(), id -> new AtomicInteger()).incrementAndGet();
            }
        }
    }
}
