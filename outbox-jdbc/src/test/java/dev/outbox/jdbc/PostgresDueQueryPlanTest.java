package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.DueRecordsQuery;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterUtils;
import org.springframework.jdbc.core.namedparam.ParsedSql;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The due-record query reads open rows only, however many COMPLETED rows sit before them, even while the planner's
 * statistics still describe the table before the drain (the usual state during a backlog drain).
 */
class PostgresDueQueryPlanTest {

    private static final int RECORDS = 20_000;
    private static final int COMPLETED = 19_000;
    private static final int LIMIT = 150;
    private static final String PRELUDE = DatabaseDialect.POSTGRESQL.statements().get("record.orderedRead.prelude");
    /**
     * Measured: without the partial indexes of changeset 004 the second scan touched 31,325 buffers; with them 357 as
     * long as the look at earlier records was a join, and 3,207 since it is a subquery per candidate (pinned so on
     * PostgreSQL, see postgresql.xml): its bitmap probe reads the completed records' entries of the aggregate again
     * until a vacuum, where the join's index scan marked them dead. The join read every open record per candidate
     * once statistics said NEW records were rare.
     */
    private static final int MAX_BUFFERS = 5_000;
    /**
     * With no aggregate holding records back no candidate is probed: 154 buffers for 150 candidates in a drain of
     * 100,000 records at its midpoint, where probing each of them read 1,347 (docs/benchmark.md, issue 31).
     */
    private static final int MAX_UNPROBED_BUFFERS = 1_000;
    /** Measured: 10 (five probes of the (status, sequence_no) index, 0.05 ms) over 20,000 rows. */
    private static final int MAX_LOOK_BUFFERS = 40;

    /** The first Buffers line of a text plan is the top node's: the whole query. */
    private static final Pattern BUFFERS = Pattern.compile("Buffers: shared hit=(\\d+)(?: read=(\\d+))?");
    private static final Pattern TOP_ROWS = Pattern.compile("actual time=\\S+ rows=(\\d+)");

    @Test
    void theDueQueryDoesNotWalkPastCompletedRecords() throws Exception {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRES)) {
            OutboxSchemaInitializer.apply(db.dataSource());
            try (Connection connection = db.dataSource().getConnection(); Statement statement =
                    connection.createStatement()) {
                insertThenCompleteTheOldest(statement);

                // The first scan after the mass update finds the completed rows' index entries dead and marks them
                // so; a drain fetches again and again, so the second scan is the one that tells the steady cost.
                explain(connection);
                String plan = explain(connection);

                assertThat(firstGroup(TOP_ROWS, plan)).as("rows returned; plan:%n%s", plan).isEqualTo(LIMIT);
                int touched = buffersTouched(plan);
                assertThat(touched).as("buffers touched; plan:%n%s", plan).isLessThanOrEqualTo(MAX_BUFFERS);
            }
        }
    }

    /**
     * Issue 31: a candidate's earlier records are probed only when its aggregate holds a record back somewhere (FAILED,
     * or NEW and not yet due): with none, the fetch reads the candidates alone, not the completed records' entries the
     * probes walked again and again until a vacuum (3,207 buffers in the test above before; 1,347 of 150 in a drain of
     * 100,000 records at its midpoint). Aggregates that do hold a record back are still probed, and held back.
     */
    @Test
    void theDueQueryProbesOnlyTheAggregatesThatHoldRecordsBack() throws Exception {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRES)) {
            OutboxSchemaInitializer.apply(db.dataSource());
            try (Connection connection = db.dataSource().getConnection(); Statement statement =
                    connection.createStatement()) {
                insertThenCompleteTheOldest(statement);
                explain(connection);

                String plan = explain(connection);

                int touched = buffersTouched(plan);
                assertThat(touched).as("buffers touched; plan:%n%s", plan).isLessThanOrEqualTo(MAX_UNPROBED_BUFFERS);

                // Each aggregate has one open record left. agg-1 and agg-2 get a second one; their first one FAILED
                // (agg-1) or waits for a retry (agg-2): the second one waits too.
                statement.execute("INSERT INTO outbox_record (id, status, aggregate_id, event_type, payload, "
                        + "partition_no, created_at, next_retry_at) SELECT 'x-' || g, 'NEW', 'agg-' || g, 'E', '{}', "
                        + "g % 256, now(), now() FROM generate_series(1, 2) g");
                statement.execute("UPDATE outbox_record SET status = 'FAILED' WHERE id = (SELECT id FROM outbox_record"
                        + " WHERE aggregate_id = 'agg-1' AND status = 'NEW' ORDER BY sequence_no LIMIT 1)");
                statement.execute("UPDATE outbox_record SET next_retry_at = now() + INTERVAL '1 hour' WHERE id = ("
                        + "SELECT id FROM outbox_record WHERE aggregate_id = 'agg-2' AND status = 'NEW'"
                        + " ORDER BY sequence_no LIMIT 1)");
                List<String> aggregates = dueAggregates(connection, 2 * LIMIT + RECORDS - COMPLETED);
                assertThat(aggregates).hasSize(RECORDS - COMPLETED - 2).doesNotContain("agg-1", "agg-2")
                        .contains("agg-3");
            }
        }
    }

    /**
     * Issue 31, bloat: while another transaction holds a snapshot open, no scan can mark the index entries of records
     * completed since dead, so a fetch from the start walks all of them, more with every record completed. A fetch
     * from the processor's floor ({@code FetchFloor}: the lowest open sequence it saw) starts past them in the index
     * and still returns a full batch. Measured: 60,000 records, 59,000 of them completed under the snapshot: 962
     * buffers from the start, 15 from the floor.
     */
    @Test
    void aFetchFromTheFloorStartsPastTheEntriesAnOpenSnapshotKeeps() throws Exception {
        int records = 60_000;
        int completed = 59_000;
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRES)) {
            OutboxSchemaInitializer.apply(db.dataSource());
            try (Connection connection = db.dataSource().getConnection(); Statement statement =
                    connection.createStatement(); Connection reader = db.dataSource().getConnection();
                    Statement readerStatement = reader.createStatement()) {
                statement.execute("INSERT INTO outbox_record (id, status, aggregate_id, event_type, payload, "
                        + "partition_no, created_at, next_retry_at) SELECT 'r-' || g, 'NEW', 'agg-' || (g % 1000), "
                        + "'E', '{}', (g % 1000) % 256, now(), now() FROM generate_series(1, " + records + ") g");
                statement.execute("VACUUM ANALYZE outbox_record");
                reader.setAutoCommit(false);
                reader.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                readerStatement.execute("SELECT COUNT(*) FROM outbox_record"); // the snapshot, held from here on
                statement.execute("UPDATE outbox_record SET status = 'COMPLETED', completed_at = now() "
                        + "WHERE sequence_no <= (SELECT MIN(sequence_no) FROM outbox_record) + " + (completed - 1));
                long floor;
                try (ResultSet lowest = statement.executeQuery(
                        "SELECT MIN(sequence_no) FROM outbox_record WHERE status = 'NEW'")) {
                    lowest.next();
                    floor = lowest.getLong(1);
                }
                MapSqlParameterSource parameters = new MapSqlParameterSource("now",
                        OffsetDateTime.now().plusSeconds(1));
                explain(connection); // as above: the second scan tells the steady cost
                String fromTheStart = explain(connection);
                String fromTheFloor = explain(connection, dueQuery(LIMIT, floor),
                        parameters.addValue("fromSequence", floor));

                assertThat(fromTheFloor).as("the index read starts at the floor").contains("sequence_no >= ");
                assertThat(firstGroup(TOP_ROWS, fromTheFloor)).as("rows; plan:%n%s", fromTheFloor).isEqualTo(LIMIT);
                int walked = buffersTouched(fromTheStart);
                int floored = buffersTouched(fromTheFloor);
                assertThat(walked).as("the snapshot keeps the entries; plan:%n%s", fromTheStart)
                        .isGreaterThan(10 * floored);
                assertThat(floored).as("buffers from the floor; plan:%n%s", fromTheFloor).isLessThanOrEqualTo(200);
            }
        }
    }

    /**
     * Issue 29: on a table never analyzed, PostgreSQL took the due NEW records for few, read every one of them and
     * sorted them: 2,178 buffers in 42 ms for the first fetch of 150 among 150,000. The store's fetch, its prelude sent
     * as the store sends it, reads them in order through the index of NEW records and stops at its limit: 16 buffers
     * in 0.13 ms.
     */
    @Test
    void theStoresFetchReadsTheFirstDueRecordsInOrderOnATableNeverAnalyzed() throws Exception {
        int records = 150_000;
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRES)) {
            OutboxSchemaInitializer.apply(db.dataSource());
            try (Connection connection = db.dataSource().getConnection(); Statement statement =
                    connection.createStatement()) {
                // 10,000 aggregates in their own partitions, so that every row reads as a record
                statement.execute("CREATE TEMPORARY TABLE aggregate (no INT, id TEXT, partition_no INT)");
                try (PreparedStatement aggregate = connection.prepareStatement(
                        "INSERT INTO aggregate VALUES (?, ?, ?)")) {
                    for (int i = 0; i < 10_000; i++) {
                        aggregate.setInt(1, i);
                        aggregate.setString(2, "agg-" + i);
                        aggregate.setInt(3, PartitionHasher.partitionOf("agg-" + i));
                        aggregate.addBatch();
                    }
                    aggregate.executeBatch();
                }
                statement.execute("INSERT INTO outbox_record (id, status, aggregate_id, event_type, payload, "
                        + "partition_no, created_at, next_retry_at) SELECT 'r-' || g, 'NEW', a.id, 'E', '{}', "
                        + "a.partition_no, now(), now() FROM generate_series(1, " + records + ") g "
                        + "JOIN aggregate a ON a.no = g % 10000");
            }
            JdbcRecordStore store = new JdbcRecordStore(db.dataSource(), DatabaseDialect.detect(db.dataSource()));
            for (boolean headOfAggregate : new boolean[] {true, false}) {
                DueRecordsQuery query = new DueRecordsQuery(OwnedPartitions.of(IntStream.range(0, 128).toArray()),
                        Instant.now().plusSeconds(1), LIMIT, headOfAggregate);
                BoundStatement fetch = store.findDueStatement(query);
                List<String> lines = store.query(new BoundStatement("EXPLAIN (ANALYZE, BUFFERS) " + fetch.sql(),
                        fetch.parameters(), fetch.prelude()), rows -> {
                            List<String> read = new ArrayList<>();
                            while (rows.next()) {
                                read.add(rows.getString(1));
                            }
                            return read;
                        });
                String plan = String.join(System.lineSeparator(), lines);

                assertThat(plan).as("plan:%n%s", plan).doesNotContain("Sort Key");
                assertThat(buffersTouched(plan)).as("buffers touched; plan:%n%s", plan)
                        .isLessThanOrEqualTo(MAX_UNPROBED_BUFFERS);
                List<Long> sequences = store.findDue(query).records().stream().map(OutboxRecord::getSequence).toList();
                assertThat(sequences).hasSize(LIMIT).isSorted();
            }
        }
    }

    /**
     * A prelude's setting ends with its statement (the fetches, the purge, the bulk writes): the connection goes back
     * to the pool as it came.
     */
    @Test
    void theStatementsAfterAPreludeLeaveTheSessionsSettingsAsTheyWere() throws Exception {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRES)) {
            OutboxSchemaInitializer.apply(db.dataSource());
            try (Connection connection = db.dataSource().getConnection()) {
                SingleConnectionDataSource single = new SingleConnectionDataSource(connection, true);
                JdbcRecordStore store = new JdbcRecordStore(single, DatabaseDialect.detect(single));

                store.findDue(new DueRecordsQuery(OwnedPartitions.all(), Instant.now(), LIMIT, true));
                store.purge(OwnedPartitions.all(), OutboxRecordStatus.COMPLETED, Instant.now(), LIMIT);
                List<Delivery> unknown = Stream.of("a", "b").map(PostgresDueQueryPlanTest::unknownRecord).toList();
                assertThat(store.markCompleted(unknown, Instant.now())).as("no such rows").hasSize(2);
                assertThat(store.deleteCompleted(unknown)).as("no such rows").hasSize(2);

                for (String name : List.of("enable_sort", "enable_seqscan")) {
                    try (Statement statement = connection.createStatement();
                            ResultSet setting = statement.executeQuery("SHOW " + name)) {
                        assertThat(setting.next()).isTrue();
                        assertThat(setting.getString(1)).as(name).isEqualTo("on");
                    }
                }
            }
        }
    }

    /** An unfenced delivery of a record the table does not hold. */
    private static Delivery unknownRecord(String id) {
        Instant now = Instant.now();
        return Delivery.unfenced(OutboxRecord.restore().id(id).sequence(1L).status(OutboxRecordStatus.NEW)
                .aggregateId("order-1").eventType("OrderPlaced").payload("{}")
                .partition(PartitionHasher.partitionOf("order-1")).createdAt(now).retryCount(0).nextRetryAt(now)
                .build());
    }

    /**
     * Issue 29: the processor's look for rows of an unknown status (written by SQL), which no due fetch reads, costs a
     * few index probes when there are none, whatever the number of rows of the known statuses.
     */
    @Test
    void theLookForUnknownStatusesReadsNoRowOfAKnownStatus() throws Exception {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRES)) {
            OutboxSchemaInitializer.apply(db.dataSource());
            try (Connection connection = db.dataSource().getConnection(); Statement statement =
                    connection.createStatement()) {
                statement.execute("INSERT INTO outbox_record (id, status, aggregate_id, event_type, payload, "
                        + "partition_no, created_at, next_retry_at) SELECT 'r-' || g, CASE WHEN g % 20 = 0 THEN 'NEW' "
                        + "WHEN g % 50 = 1 THEN 'FAILED' ELSE 'COMPLETED' END, 'agg-' || (g % 1000), 'E', '{}', "
                        + "(g % 1000) % 256, now(), now() FROM generate_series(1, " + RECORDS + ") g");
                statement.execute("ANALYZE outbox_record");
                SqlStatements sql = DatabaseDialect.POSTGRESQL.statements();
                String look = sql.get("record.findUnknownStatus").replace("{columns}", sql.get("record.columns"))
                        .replace("{unknownStatus}", JdbcRecordStore.unknownStatusPredicate())
                        .replace("{partitionFilter}", "").replace("{limit}", Integer.toString(LIMIT));

                String plan = explain(connection, "", look, new MapSqlParameterSource());

                assertThat(firstGroup(TOP_ROWS, plan)).as("rows returned; plan:%n%s", plan).isZero();
                int touched = buffersTouched(plan);
                assertThat(touched).as("buffers touched; plan:%n%s", plan).isLessThanOrEqualTo(MAX_LOOK_BUFFERS);
            }
        }
    }

    /**
     * {@link #RECORDS} NEW records round-robin over 1,000 aggregates, as an application writes them, statistics taken
     * while all are NEW; then the oldest {@link #COMPLETED} completed.
     */
    private static void insertThenCompleteTheOldest(Statement statement) throws SQLException {
        statement.execute("INSERT INTO outbox_record (id, status, aggregate_id, event_type, payload, partition_no, "
                + "created_at, next_retry_at) SELECT 'r-' || g, 'NEW', 'agg-' || (g % 1000), 'E', '{}', "
                + "(g % 1000) % 256, now(), now() FROM generate_series(1, " + RECORDS + ") g");
        statement.execute("ANALYZE outbox_record");
        statement.execute("UPDATE outbox_record SET status = 'COMPLETED', completed_at = now() "
                + "WHERE sequence_no <= (SELECT MIN(sequence_no) FROM outbox_record) + " + (COMPLETED - 1));
    }

    /** The buffers the whole query touched: the first Buffers line of a text plan is the top node's. */
    private static int buffersTouched(String plan) {
        Matcher buffers = BUFFERS.matcher(plan);
        assertThat(buffers.find()).as("plan has buffer counts:%n%s", plan).isTrue();
        return Integer.parseInt(buffers.group(1)) + (buffers.group(2) == null ? 0 : Integer.parseInt(buffers.group(2)));
    }

    private static int firstGroup(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        assertThat(matcher.find()).as("%s in:%n%s", pattern, text).isTrue();
        return Integer.parseInt(matcher.group(1));
    }

    private static String dueQuery(int limit) {
        return dueQuery(limit, null);
    }

    /** The due query, from {@code floor} on when there is one ({@code :fromSequence}). */
    private static String dueQuery(int limit, @Nullable Long floor) {
        SqlStatements sql = DatabaseDialect.POSTGRESQL.statements();
        return sql.get("record.findDue.headOfAggregate")
                .replace("{columns}", sql.get("record.columns"))
                .replace("{partitionFilter}", "")
                .replace("{setAsideFilter}", "")
                .replace("{floorFilter}", floor == null ? "" : sql.get("record.filter.floor"))
                .replace("{limit}", Integer.toString(limit));
    }

    /** The aggregate of each record the due fetch returns. */
    private static List<String> dueAggregates(Connection connection, int limit) throws SQLException {
        MapSqlParameterSource parameters = new MapSqlParameterSource("now", OffsetDateTime.now().plusSeconds(1));
        ParsedSql parsed = NamedParameterUtils.parseSqlStatement(dueQuery(limit));
        try (PreparedStatement query = connection.prepareStatement(
                NamedParameterUtils.substituteNamedParameters(parsed, parameters))) {
            Object[] values = NamedParameterUtils.buildValueArray(parsed, parameters, null);
            for (int i = 0; i < values.length; i++) {
                query.setObject(i + 1, values[i]);
            }
            List<String> aggregates = new ArrayList<>();
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    aggregates.add(rows.getString("aggregate_id"));
                }
            }
            return aggregates;
        }
    }

    private static String explain(Connection connection) throws SQLException {
        return explain(connection, dueQuery(LIMIT),
                new MapSqlParameterSource("now", OffsetDateTime.now().plusSeconds(1)));
    }

    /** The plan of a due fetch, after the prelude the store sends ahead of it. */
    private static String explain(Connection connection, String query, MapSqlParameterSource parameters)
            throws SQLException {
        return explain(connection, PRELUDE, query, parameters);
    }

    private static String explain(Connection connection, String prelude, String query,
            MapSqlParameterSource parameters) throws SQLException {
        // The statement takes named parameters; plain JDBC binds them by position.
        ParsedSql parsed = NamedParameterUtils.parseSqlStatement(query);
        Object[] values = NamedParameterUtils.buildValueArray(parsed, parameters, null);
        List<String> lines = PreludedQuery.firstColumn(connection, prelude,
                "EXPLAIN (ANALYZE, BUFFERS) " + NamedParameterUtils.substituteNamedParameters(parsed, parameters),
                explain -> {
                    for (int i = 0; i < values.length; i++) {
                        explain.setObject(i + 1, values[i]);
                    }
                });
        return String.join(System.lineSeparator(), lines);
    }
}
