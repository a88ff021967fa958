package dev.outbox.jdbc;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.RecordHeaders;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.spi.DeferredRecordsQuery;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.spi.FailedRecordOrder;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.PartitionBacklog;
import dev.outbox.spi.PartitionRecords;
import dev.outbox.spi.RecordAdministration;
import dev.outbox.spi.RecordPurge;
import dev.outbox.spi.RecordStatistics;
import dev.outbox.spi.RecordStore;
import dev.outbox.spi.UnreadableRow;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.PreparedStatementCallback;
import org.springframework.jdbc.core.ResultSetExtractor;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.core.SqlTypeValue;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link RecordStore} in plain SQL over JDBC. Every method is one statement (a batch of statements in one
 * transaction for several records), so it needs no surrounding transaction; statements come from the
 * {@link DatabaseDialect}'s SQL resources and take named parameters. Inside a transaction bound to its
 * {@link DataSource} (a transactional handler's: {@link JdbcOutboxStores#recordTransactions}) its writes join that
 * transaction, the batches too.
 *
 * <p>A status write of a delivery under a fence changes its row only while {@code outbox_partition} names the fence's
 * owner under its epoch (the {@code record.fence} condition), in the same statement as the write.
 *
 * <p>Rows are read value by value ({@link RecordRows}): a row that cannot be a record is reported apart by the
 * {@code …Rows} reads, and left out by the others, instead of failing the read of every row.
 */
public final class JdbcRecordStore implements RecordStore, RecordStatistics, RecordPurge, RecordAdministration {

    private final DataSource dataSource;
    private final NamedParameterJdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final DatabaseDialect dialect;
    private final SqlStatements sql;
    private final String findDueHeadOfAggregate;
    private final String findDueAny;
    private final String findDeferralsDueHeadOfAggregate;
    private final String findDeferralsDueAny;
    private final String findUnknownStatus;
    private final String orderedReadPrelude;
    private final String byKeysPrelude;
    private final StatusWrite markCompleted;
    private final StatusWrite deleteCompleted;
    private final StatusWrite scheduleRetry;
    private final StatusWrite defer;
    private final StatusWrite markFailed;
    private final StatusWrite failUnreadable;
    private final JdbcFailedRecords failedRecords;
    private final @Nullable String markCompletedBulk;
    private final @Nullable String deleteCompletedBulk;
    private final @Nullable String deleteMarkedCompleted;
    private final @Nullable String highestAssignedSequence;
    private final ResultSetExtractor<FetchedRows> rows;

    /** On the default tables ({@link OutboxTables#defaults()}). */
    public JdbcRecordStore(DataSource dataSource, DatabaseDialect dialect) {
        this(dataSource, dialect.statements());
    }

    /**
     * With the statements of one database on one set of tables, as
     * {@link DatabaseDialect#detect(DataSource, OutboxTables)} makes them.
     */
    public JdbcRecordStore(DataSource dataSource, SqlStatements sql) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.jdbc = new NamedParameterJdbcTemplate(dataSource);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.dialect = sql.dialect();
        if (dialect.writesLockWhatTheyRead()) {
            // The fences of a batch must not hold partition rows until its commit: see writesLockWhatTheyRead.
            transactions.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        }
        this.sql = Objects.requireNonNull(sql, "sql");
        String columns = sql.get("record.columns");
        this.findDueHeadOfAggregate = sql.get("record.findDue.headOfAggregate").replace("{columns}", columns);
        this.findDueAny = sql.get("record.findDue.any").replace("{columns}", columns);
        this.findDeferralsDueHeadOfAggregate = sql.get("record.findDeferralsDue.headOfAggregate")
                .replace("{columns}", columns);
        this.findDeferralsDueAny = sql.get("record.findDeferralsDue.any").replace("{columns}", columns);
        this.orderedReadPrelude = sql.find("record.orderedRead.prelude").orElse("");
        this.byKeysPrelude = sql.find("record.byKeys.prelude").orElse("");
        this.findUnknownStatus = sql.get("record.findUnknownStatus").replace("{columns}", columns)
                .replace("{unknownStatus}", unknownStatusPredicate());
        String fence = sql.get("record.fence");
        this.markCompleted = StatusWrite.of(sql.get("record.markCompleted"), fence);
        this.deleteCompleted = StatusWrite.of(sql.get("record.deleteCompleted"), fence);
        this.scheduleRetry = StatusWrite.of(sql.get("record.scheduleRetry"), fence);
        this.defer = StatusWrite.of(sql.get("record.defer"), fence);
        this.markFailed = StatusWrite.of(sql.get("record.markFailed"), fence);
        this.failUnreadable = StatusWrite.of(sql.get("record.failUnreadable"), fence);
        this.rows = RecordRows.extractor(dialect);
        this.failedRecords = new JdbcFailedRecords(this, jdbc, sql, rows);
        this.markCompletedBulk = sql.find("record.markCompleted.bulk").orElse(null);
        this.deleteCompletedBulk = sql.find("record.deleteCompleted.bulk").orElse(null);
        this.deleteMarkedCompleted = sql.find("record.deleteCompleted.marked").orElse(null);
        this.highestAssignedSequence = sql.find("record.highestAssignedSequence").orElse(null);
    }

    @Override
    public FetchedRows findDue(DueRecordsQuery query) {
        return query(findDueStatement(query), rows);
    }

    BoundStatement findDueStatement(DueRecordsQuery query) {
        MapSqlParameterSource parameters = new MapSqlParameterSource("now", dialect.timestampValue(query.now()));
        String setAsideFilter = "";
        if (!query.setAside().isEmpty()) {
            setAsideFilter = sql.get("record.filter.setAside");
            parameters.addValue("setAside", List.copyOf(query.setAside()));
        }
        String floorFilter = "";
        if (query.fromSequence() != null) {
            floorFilter = sql.get(query.headOfAggregateOnly() ? "record.filter.floor.headOfAggregate"
                    : "record.filter.floor");
            parameters.addValue("fromSequence", query.fromSequence());
        }
        if (query.toSequence() != null) {
            floorFilter = floorFilter + " " + sql.get("record.filter.ceiling");
            parameters.addValue("toSequence", query.toSequence());
        }
        String statement = (query.headOfAggregateOnly() ? findDueHeadOfAggregate : findDueAny)
                .replace("{partitionFilter}", partitionFilter(query.partitions()))
                .replace("{setAsideFilter}", setAsideFilter)
                .replace("{floorFilter}", floorFilter)
                .replace("{limit}", Integer.toString(query.limit()));
        return new BoundStatement(statement, parameters, orderedReadPrelude);
    }

    /**
     * Runs a query; its prelude (record.orderedRead.prelude for the fetches and the purge, record.byKeys.prelude for
     * the bulk writes, which return their ids) goes first, in the same round trip and so the same implicit
     * transaction: the engine runs these in auto-commit, except the bulk completions of transactional handlers, whose
     * prelude (a planner setting local to the transaction) then holds until that transaction ends.
     */
    <T> T query(BoundStatement statement, ResultSetExtractor<T> extractor) {
        if (statement.prelude().isEmpty()) {
            return Objects.requireNonNull(jdbc.query(statement.sql(), statement.parameters(), extractor));
        }
        return afterPrelude(statement, ps -> {
            ResultSet result = ps.getResultSet();
            if (result == null) {
                throw new IllegalStateException("No rows from the statement after its prelude: " + statement.prelude());
            }
            try (result) {
                return extractor.extractData(result);
            }
        });
    }

    /**
     * Sends the statement's prelude and the statement itself in one round trip, skips the prelude's result, and reads
     * the statement's with {@code read}.
     */
    private <T> T afterPrelude(BoundStatement statement, PreparedStatementCallback<T> read) {
        return Objects.requireNonNull(jdbc.execute(statement.prelude() + ";\n" + statement.sql(),
                statement.parameters(), ps -> {
                    ps.execute();
                    ps.getMoreResults();
                    return read.doInPreparedStatement(ps);
                }));
    }

    @Override
    public OptionalLong highestAssignedSequence() {
        if (highestAssignedSequence == null) {
            return OptionalLong.empty();
        }
        List<Long> highest = jdbc.getJdbcOperations().query(highestAssignedSequence,
                (row, index) -> row.getObject(1, Long.class));
        return highest.isEmpty() || highest.get(0) == null ? OptionalLong.empty() : OptionalLong.of(highest.get(0));
    }

    @Override
    public FetchedRows findUnknownStatusRows(OwnedPartitions partitions, int limit) {
        String statement = findUnknownStatus.replace("{partitionFilter}", partitionFilter(partitions))
                .replace("{limit}", Integer.toString(limit));
        return jdbc.query(statement, new MapSqlParameterSource(), rows);
    }

    /**
     * A status none of the library's, as the open ranges around the known ones: the (status, sequence_no) index
     * answers it with a few probes. Uppercase ASCII names sort alike in Java and in every collation.
     */
    static String unknownStatusPredicate() {
        List<String> known = Arrays.stream(OutboxRecordStatus.values()).map(Enum::name).sorted().toList();
        StringBuilder predicate = new StringBuilder("(r.status < '").append(known.get(0)).append('\'');
        for (int i = 1; i < known.size(); i++) {
            predicate.append(" OR (r.status > '").append(known.get(i - 1)).append("' AND r.status < '")
                    .append(known.get(i)).append("')");
        }
        return predicate.append(" OR r.status > '").append(known.get(known.size() - 1)).append("')").toString();
    }

    @Override
    public FetchedRows findDeferralsDue(DeferredRecordsQuery query) {
        return query(findDeferralsDueStatement(query), rows);
    }

    BoundStatement findDeferralsDueStatement(DeferredRecordsQuery query) {
        String statement = (query.headOfAggregateOnly() ? findDeferralsDueHeadOfAggregate : findDeferralsDueAny)
                .replace("{partitionFilter}", partitionFilter(query.partitions()))
                .replace("{limit}", Integer.toString(query.limit()));
        return new BoundStatement(statement, new MapSqlParameterSource("now", dialect.timestampValue(query.now()))
                .addValue("handlerIds", List.copyOf(query.handlerIds()))
                .addValue("maxDeferralCutoff", dialect.timestampValue(query.maxDeferralCutoff())), orderedReadPrelude);
    }

    /** FAILED records; rows that cannot be records are left out (see {@link #findFailedRows}). */
    @Override
    public List<OutboxRecord> findFailed(FailedRecordFilter filter, int limit) {
        return findFailedRows(filter, limit).records();
    }

    @Override
    public FetchedRows findFailedRows(FailedRecordFilter filter, int limit) {
        return failedRecords.findFailedRows(filter, limit);
    }

    @Override
    public FetchedRows findFailedPage(FailedRecordFilter filter, FailedRecordOrder order, @Nullable Long afterSequence,
            @Nullable Long throughSequence, int limit) {
        return failedRecords.findFailedPage(filter, order, afterSequence, throughSequence, limit);
    }

    @Override
    public @Nullable Long failedSequenceAfter(FailedRecordOrder order, @Nullable Long afterSequence, int n) {
        return failedRecords.failedSequenceAfter(order, afterSequence, n);
    }

    /** The statements on FAILED records by filter, for tests that read their plans. */
    JdbcFailedRecords failedRecords() {
        return failedRecords;
    }

    @Override
    public long countFailed(FailedRecordFilter filter) {
        return failedRecords.countFailed(filter);
    }

    @Override
    public Map<String, Long> countNewBehind(Collection<String> failedIds) {
        return failedRecords.countNewBehind(failedIds);
    }

    @Override
    public PartitionRecords partitionRecords(int partition, Instant now) {
        return failedRecords.partitionRecords(partition, now);
    }

    @Override
    public boolean retryFailed(String id, Instant now) {
        return jdbc.update(sql.get("admin.retryFailed"), Map.of("now", dialect.timestampValue(now), "id", id)) == 1;
    }

    @Override
    public int retryAllFailed(FailedRecordFilter filter, Instant now) {
        return failedRecords.retryAllFailed(filter, now);
    }

    @Override
    public boolean skipFailed(String id, Instant now) {
        return jdbc.update(sql.get("admin.skipFailed"), Map.of("now", dialect.timestampValue(now), "id", id)) == 1;
    }

    @Override
    public int skipAllFailed(FailedRecordFilter filter, Instant now) {
        return failedRecords.skipAllFailed(filter, now);
    }

    @Override
    public boolean deleteFailed(String id) {
        return jdbc.update(sql.get("admin.deleteFailed"), Map.of("id", id)) == 1;
    }

    @Override
    public int deleteAllFailed(FailedRecordFilter filter) {
        return failedRecords.deleteAllFailed(filter);
    }

    @Override
    public int purge(OwnedPartitions partitions, OutboxRecordStatus status, Instant createdBefore, int limit) {
        if (status == OutboxRecordStatus.NEW) {
            throw new IllegalArgumentException("NEW records are never purged");
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1 but was " + limit);
        }
        return update(purgeStatement(partitions, status, createdBefore, limit));
    }

    BoundStatement purgeStatement(OwnedPartitions partitions, OutboxRecordStatus status, Instant createdBefore,
            int limit) {
        String statement = sql.get("record.purge").replace("{partitionFilter}", partitionFilter(partitions))
                .replace("{limit}", Integer.toString(limit));
        return new BoundStatement(statement, new MapSqlParameterSource("status", status.name())
                .addValue("createdBefore", dialect.timestampValue(createdBefore)), orderedReadPrelude);
    }

    @Override
    public Map<OutboxRecordStatus, Long> countByStatus() {
        Map<OutboxRecordStatus, Long> counts = new EnumMap<>(OutboxRecordStatus.class);
        countByStoredStatus().forEach((stored, count) -> {
            OutboxRecordStatus status = RecordRows.knownStatus(stored);
            // A status no record can have (written by SQL) is left out, rather than failing every count.
            if (status != null) {
                counts.merge(status, count, Long::sum);
            }
        });
        return counts;
    }

    @Override
    public Map<String, Long> countByStoredStatus() {
        return storedStatusCounts(new BoundStatement(sql.get("record.countByStatus"), new MapSqlParameterSource(),
                ""));
    }

    @Override
    public Map<String, Long> countByStoredStatusExceptCompleted() {
        return storedStatusCounts(countExceptCompletedStatement());
    }

    /** Through the status index: on PostgreSQL never a read of the whole table, whatever the statistics say. */
    BoundStatement countExceptCompletedStatement() {
        return new BoundStatement(sql.get("record.countByStatusExceptCompleted"), new MapSqlParameterSource(),
                byKeysPrelude);
    }

    private Map<String, Long> storedStatusCounts(BoundStatement statement) {
        Map<String, Long> counts = new LinkedHashMap<>();
        return query(statement, (ResultSet rows) -> {
            while (rows.next()) {
                String status = rows.getString("status");
                counts.merge(status == null ? "NULL" : status, rows.getLong("record_count"), Long::sum);
            }
            return counts;
        });
    }

    @Override
    public List<PartitionBacklog> pendingByPartitionAndHandler() {
        List<PartitionBacklog> backlog = new ArrayList<>();
        jdbc.getJdbcTemplate().query(sql.get("record.pendingByPartitionAndHandler"), (ResultSet row) -> {
            int partition = row.getInt("partition_no");
            boolean partitionNull = row.wasNull();
            Instant oldest = dialect.readTimestamp(row, "oldest_created_at");
            // Rows no partition holds, or without a creation time (written by SQL; the processor reports them), are
            // left out rather than failing every gauge.
            if (!partitionNull && oldest != null && partition >= 0 && partition < PartitionHasher.PARTITION_COUNT) {
                backlog.add(new PartitionBacklog(partition, handlerId(row.getString("handler_id")),
                        row.getLong("pending"), oldest));
            }
        });
        return backlog;
    }

    /** The column holds '' for records addressed to no handler (the column is NOT NULL). */
    private static @Nullable String handlerId(@Nullable String column) {
        return column == null || column.isEmpty() ? null : column;
    }

    @Override
    public List<Delivery> markCompleted(List<Delivery> deliveries, Instant completedAt) {
        if (markCompletedBulk != null && deliveries.size() > 1) {
            return bulk(markCompletedBulkStatement(deliveries, completedAt), deliveries);
        }
        return batch(deliveries, delivery -> markCompletedStatement(delivery, completedAt));
    }

    @Override
    public List<Delivery> deleteCompleted(List<Delivery> deliveries) {
        if (deleteCompletedBulk != null && deliveries.size() > 1) {
            return bulk(deleteCompletedBulkStatement(deliveries), deliveries);
        }
        if (deleteMarkedCompleted != null && (deliveries.size() > 1 || BoundTransactions.isOpen(dataSource))) {
            return markThenDelete(deliveries);
        }
        return batch(deliveries, this::deleteCompletedStatement);
    }

    /**
     * Deletes in a transaction where a DELETE's subqueries lock the rows they read at every isolation (InnoDB reads
     * them with shared locks, an UPDATE's at READ COMMITTED without): the fences would hold the partition rows until
     * the commit. The records are marked COMPLETED under their fences instead, then the rows marked, whose locks the
     * transaction holds, are deleted by id, in the same transaction.
     */
    private List<Delivery> markThenDelete(List<Delivery> deliveries) {
        List<Delivery> notChanged = new ArrayList<>();
        Instant now = Instant.now();
        inOneTransaction(() -> {
            notChanged.addAll(batch(deliveries, delivery -> markCompletedStatement(delivery, now)));
            Set<Delivery> refused = Collections.newSetFromMap(new IdentityHashMap<>());
            refused.addAll(notChanged);
            batch(deliveries.stream().filter(delivery -> !refused.contains(delivery)).toList(),
                    this::deleteMarkedCompletedStatement);
        });
        return notChanged;
    }

    /** record.deleteCompleted.marked for one delivery; fails on a database without it. */
    BoundStatement deleteMarkedCompletedStatement(Delivery delivery) {
        return new BoundStatement(Objects.requireNonNull(deleteMarkedCompleted, "record.deleteCompleted.marked"),
                new MapSqlParameterSource("id", delivery.id()));
    }

    /** record.markCompleted for one delivery: what a single completion, and each entry of a batch of them, runs. */
    BoundStatement markCompletedStatement(Delivery delivery, Instant completedAt) {
        return new BoundStatement(markCompleted.sqlFor(delivery.fence()),
                keys(delivery).addValue("completedAt", dialect.timestampValue(completedAt)));
    }

    BoundStatement deleteCompletedStatement(Delivery delivery) {
        return new BoundStatement(deleteCompleted.sqlFor(delivery.fence()), keys(delivery));
    }

    /** record.markCompleted.bulk for several deliveries; fails on a database without it. */
    BoundStatement markCompletedBulkStatement(List<Delivery> deliveries, Instant completedAt) {
        return new BoundStatement(Objects.requireNonNull(markCompletedBulk, "record.markCompleted.bulk"),
                bulkKeys(deliveries).addValue("completedAt", dialect.timestampValue(completedAt)), byKeysPrelude);
    }

    /** record.deleteCompleted.bulk for several deliveries; fails on a database without it. */
    BoundStatement deleteCompletedBulkStatement(List<Delivery> deliveries) {
        return new BoundStatement(Objects.requireNonNull(deleteCompletedBulk, "record.deleteCompleted.bulk"),
                bulkKeys(deliveries), byKeysPrelude);
    }

    @Override
    public boolean scheduleRetry(Delivery delivery, int retryCount, Instant nextRetryAt, String lastError) {
        return update(scheduleRetryStatement(delivery, retryCount, nextRetryAt, lastError)) == 1;
    }

    BoundStatement scheduleRetryStatement(Delivery delivery, int retryCount, Instant nextRetryAt, String lastError) {
        return new BoundStatement(scheduleRetry.sqlFor(delivery.fence()), keys(delivery)
                .addValue("retryCount", retryCount).addValue("nextRetryAt", dialect.timestampValue(nextRetryAt))
                .addValue("lastError", lastError));
    }

    @Override
    public boolean defer(Delivery delivery, Instant nextAttemptAt, String lastError, Instant deferredAt) {
        return update(deferStatement(delivery, nextAttemptAt, lastError, deferredAt)) == 1;
    }

    BoundStatement deferStatement(Delivery delivery, Instant nextAttemptAt, String lastError, Instant deferredAt) {
        return new BoundStatement(defer.sqlFor(delivery.fence()), keys(delivery)
                .addValue("nextAttemptAt", dialect.timestampValue(nextAttemptAt)).addValue("lastError", lastError)
                .addValue("deferredAt", dialect.timestampValue(deferredAt)));
    }

    @Override
    public boolean markFailed(Delivery delivery, int retryCount, String lastError) {
        return update(markFailedStatement(delivery, retryCount, lastError)) == 1;
    }

    BoundStatement markFailedStatement(Delivery delivery, int retryCount, String lastError) {
        return new BoundStatement(markFailed.sqlFor(delivery.fence()), keys(delivery)
                .addValue("retryCount", retryCount).addValue("lastError", lastError));
    }

    /** Runs a write; its prelude goes first, as in {@link #query}. */
    private int update(BoundStatement statement) {
        if (statement.prelude().isEmpty()) {
            return jdbc.update(statement.sql(), statement.parameters());
        }
        return afterPrelude(statement, ps -> {
            int count = ps.getUpdateCount();
            if (count < 0) {
                throw new IllegalStateException("No update count from the statement after its prelude: "
                        + statement.prelude());
            }
            return count;
        });
    }

    @Override
    public boolean failUnreadable(UnreadableRow row, Fence fence, String lastError) {
        if (row.id() == null || row.status() == null || row.partition() == null
                || row.partition() != fence.partition()) {
            throw new IllegalArgumentException("an unreadable row is failed by its id and status, under the fence of "
                    + "its partition: " + row + ", " + fence);
        }
        return jdbc.update(failUnreadable.sqlFor(fence), new MapSqlParameterSource("id", row.id())
                .addValue("readStatus", row.status())
                .addValue("lastError", lastError)
                .addValue("fencePartition", fence.partition())
                .addValue("fenceOwner", fence.owner())
                .addValue("fenceEpoch", fence.epoch())) == 1;
    }

    /** The row as read, and the fence of the write: the parameters of every status write. */
    private static MapSqlParameterSource keys(Delivery delivery) {
        Fence fence = delivery.fence();
        return new MapSqlParameterSource("id", delivery.id())
                .addValue("readRetryCount", delivery.record().getRetryCount())
                .addValue("fencePartition", fence.partition())
                .addValue("fenceOwner", fence.owner())
                .addValue("fenceEpoch", fence.epoch());
    }

    /**
     * One status write per delivery, as JDBC batches in one transaction (one commit: the commits, not the statements,
     * are the cost); returns the deliveries it did not change. A driver that reports
     * {@link Statement#SUCCESS_NO_INFO} is taken at its word.
     */
    private List<Delivery> batch(List<Delivery> deliveries, Function<Delivery, BoundStatement> write) {
        if (deliveries.isEmpty()) {
            return List.of();
        }
        if (deliveries.size() == 1) {
            return update(write.apply(deliveries.get(0))) == 1 ? List.of() : deliveries;
        }
        // Fenced and unfenced statements differ in text: one batch each.
        Map<String, List<Delivery>> byStatement = new LinkedHashMap<>();
        Map<String, List<SqlParameterSource>> parametersByStatement = new LinkedHashMap<>();
        for (Delivery delivery : deliveries) {
            BoundStatement statement = write.apply(delivery);
            byStatement.computeIfAbsent(statement.sql(), sql -> new ArrayList<>()).add(delivery);
            parametersByStatement.computeIfAbsent(statement.sql(), sql -> new ArrayList<>())
                    .add(statement.parameters());
        }
        List<Delivery> notChanged = new ArrayList<>();
        Runnable writes = () -> byStatement.forEach((statement, group) -> {
            int[] counts = jdbc.batchUpdate(statement,
                    parametersByStatement.get(statement).toArray(SqlParameterSource[]::new));
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] != 1 && counts[i] != Statement.SUCCESS_NO_INFO) {
                    notChanged.add(group.get(i));
                }
            }
        });
        inOneTransaction(writes);
        return notChanged;
    }

    /** Runs {@code writes} in the transaction bound to the DataSource, whichever manager began it, else in its own. */
    private void inOneTransaction(Runnable writes) {
        if (BoundTransactions.isOpen(dataSource)) {
            // A transactional handler's: a DataSourceTransactionManager of our own would take the connection a
            // JpaTransactionManager bound for no transaction of its own, and commit it early.
            writes.run();
        } else {
            transactions.executeWithoutResult(status -> writes.run());
        }
    }

    /** One set-based status write over arrays of the deliveries' keys; returns the deliveries it did not change. */
    private List<Delivery> bulk(BoundStatement statement, List<Delivery> deliveries) {
        Set<String> changed = query(statement, result -> {
            Set<String> ids = new HashSet<>();
            while (result.next()) {
                ids.add(result.getString(1));
            }
            return ids;
        });
        return deliveries.stream().filter(delivery -> !changed.contains(delivery.id())).toList();
    }

    /** The deliveries' keys as arrays, one element per delivery: the parameters of the bulk status writes. */
    private static MapSqlParameterSource bulkKeys(List<Delivery> deliveries) {
        return new MapSqlParameterSource()
                .addValue("ids", array("varchar", deliveries, Delivery::id))
                .addValue("readRetryCounts", array("int4", deliveries, d -> d.record().getRetryCount()))
                .addValue("fencePartitions", array("int4", deliveries, d -> d.fence().partition()))
                .addValue("fenceEpochs", array("int8", deliveries, d -> d.fence().epoch()))
                .addValue("fenceOwners", array("varchar", deliveries, d -> d.fence().owner()));
    }

    /** A SQL array of one value per delivery, made on the statement's own connection. */
    private static SqlParameterValue array(String elementType, List<Delivery> deliveries,
            Function<Delivery, @Nullable Object> value) {
        Object[] elements = deliveries.stream().map(value).toArray();
        SqlTypeValue array = (statement, index, sqlType, typeName) -> {
            Connection connection = statement.getConnection();
            statement.setArray(index, connection.createArrayOf(elementType, elements));
        };
        return new SqlParameterValue(Types.ARRAY, array);
    }

    /** Both forms of a status write: fenced for deliveries under a fence, unfenced for the others. */
    private record StatusWrite(String unfenced, String fenced) {
        static StatusWrite of(String sql, String fence) {
            return new StatusWrite(sql.replace("{fence}", ""), sql.replace("{fence}", fence));
        }

        String sqlFor(Fence fence) {
            return fence.isFenced() ? fenced : unfenced;
        }
    }

    /** record.filter.partitions for the owned partitions, nothing when they are all; made of integers only. */
    private String partitionFilter(OwnedPartitions partitions) {
        if (partitions.isAll()) {
            return "";
        }
        return sql.get("record.filter.partitions").replace("{partitions}",
                partitions.stream().mapToObj(Integer::toString).collect(Collectors.joining(",")));
    }

    /** The record of the current row, whose columns are {@code record.columns}. */
    static OutboxRecord read(ResultSet rs, DatabaseDialect dialect) throws SQLException {
        return OutboxRecord.restore()
                .id(rs.getString("id"))
                .sequence(rs.getLong("sequence_no"))
                .status(OutboxRecordStatus.valueOf(rs.getString("status")))
                .aggregateId(rs.getString("aggregate_id"))
                .eventType(rs.getString("event_type"))
                .payload(rs.getString("payload"))
                .partition(rs.getInt("partition_no"))
                .createdAt(dialect.readTimestamp(rs, "created_at"))
                .completedAt(dialect.readTimestamp(rs, "completed_at"))
                .retryCount(rs.getInt("retry_count"))
                .nextRetryAt(dialect.readTimestamp(rs, "next_retry_at"))
                .lastError(rs.getString("last_error"))
                .traceContext(rs.getString("trace_context"))
                .headers(RecordHeaders.decode(rs.getString("headers")))
                .handlerId(rs.getString("handler_id"))
                .firstDeferredAt(dialect.readTimestamp(rs, "first_deferred_at"))
                .build();
    }
}
