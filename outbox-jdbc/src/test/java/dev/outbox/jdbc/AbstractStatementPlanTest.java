package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.PreparedStatementCreatorFactory;
import org.springframework.jdbc.core.PreparedStatementSetter;
import org.springframework.jdbc.core.namedparam.NamedParameterUtils;
import org.springframework.jdbc.core.namedparam.ParsedSql;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Every hot statement ({@link HotStatements}), rendered and bound by the stores, keeps a plan that never reads the
 * record table whole nor walks its NEW rows for each row of a batch, in each state of the table's statistics that a
 * running outbox meets: never analyzed, bulk-loaded since the last analysis, or believed far larger than it is. The
 * planner is free to choose; the statements' shapes leave it no bad choice.
 *
 * <p>Each state gets a database of its own; a test per statement (and plan mode, where the database has several)
 * names the database, the state and the statement, and its failure shows the plan.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractStatementPlanTest {

    static final String RECORD_TABLE = "outbox_record";
    static final String PARTITION_TABLE = "outbox_partition";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<TestDatabase> databases = new CopyOnWriteArrayList<>();

    /** A state of the record table's statistics, and how to bring a database with the outbox schema into it. */
    interface StatisticsState {
        String description();

        void prepare(Connection connection) throws SQLException;
    }

    /** One way the database plans a statement (PostgreSQL: custom and generic plans). */
    interface PlanMode {
        String description();
    }

    abstract TestDatabase.Kind databaseKind();

    abstract String databaseName();

    abstract List<? extends StatisticsState> states();

    abstract List<? extends PlanMode> planModes();

    /**
     * The plan, as the database's JSON, of the statement: {@code positionalSql} has JDBC's {@code ?} placeholders,
     * which {@code parameters} fills as the stores' JdbcTemplate does.
     */
    abstract JsonNode explain(Connection connection, String prelude, String positionalSql,
            PreparedStatementSetter parameters, PlanMode mode) throws SQLException;

    /** What is wrong with the plan for this statement in this state: empty when nothing. */
    abstract List<String> violations(JsonNode plan, HotStatements.Hot statement, StatisticsState state);

    @TestFactory
    Stream<DynamicContainer> hotStatementsKeepTheirPlans() {
        return states().stream().map(state -> dynamicContainer(databaseName() + ", " + state.description(),
                Stream.of(state).flatMap(this::testsIn)));
    }

    @AfterAll
    void dropDatabases() {
        databases.forEach(TestDatabase::close);
    }

    private Stream<DynamicTest> testsIn(StatisticsState state) {
        TestDatabase db = TestDatabase.create(databaseKind());
        databases.add(db);
        OutboxSchemaInitializer.apply(db.dataSource());
        List<String> ids;
        try (Connection connection = db.dataSource().getConnection()) {
            state.prepare(connection);
            ids = newRecordIds(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not bring " + db + " into the state: " + state.description(), e);
        }
        SqlStatements sql = DatabaseDialect.detect(db.dataSource()).statements();
        List<DynamicTest> tests = new ArrayList<>();
        for (HotStatements.Hot statement : HotStatements.of(db.dataSource(), sql, ids)) {
            for (PlanMode mode : planModes()) {
                String where = databaseName() + ", " + state.description() + ", " + statement.name()
                        + (mode.description().isEmpty() ? "" : ", " + mode.description());
                tests.add(dynamicTest(statement.name() + modeSuffix(mode), () -> {
                    JsonNode plan = explain(db, statement, mode);
                    assertThat(violations(plan, statement, state)).as("%s; plan:%n%s", where, plan.toPrettyString())
                            .isEmpty();
                }));
            }
        }
        return tests.stream();
    }

    private static String modeSuffix(PlanMode mode) {
        return mode.description().isEmpty() ? "" : ", " + mode.description();
    }

    private JsonNode explain(TestDatabase db, HotStatements.Hot statement, PlanMode mode) throws SQLException {
        try (Connection connection = db.dataSource().getConnection()) {
            return explain(connection, statement.statement().prelude(), positionalSql(statement.statement()),
                    parameterSetter(statement.statement()), mode);
        }
    }

    /** The statement's SQL made ready for JDBC as NamedParameterJdbcTemplate makes it (a list: one ? per element). */
    static String positionalSql(BoundStatement statement) {
        return NamedParameterUtils.substituteNamedParameters(NamedParameterUtils.parseSqlStatement(statement.sql()),
                statement.parameters());
    }

    /** What fills the placeholders of {@link #positionalSql}, as NamedParameterJdbcTemplate fills them. */
    static PreparedStatementSetter parameterSetter(BoundStatement statement) {
        SqlParameterSource source = statement.parameters();
        ParsedSql parsed = NamedParameterUtils.parseSqlStatement(statement.sql());
        return new PreparedStatementCreatorFactory(positionalSql(statement),
                NamedParameterUtils.buildSqlParameterList(parsed, source))
                .newPreparedStatementSetter(NamedParameterUtils.buildValueArray(parsed, source, null));
    }

    /**
     * Reads the one-column JSON plan of the EXPLAIN statement given, run after the statement's prelude as the store
     * runs it (see {@link PreludedQuery}).
     */
    static JsonNode readPlan(Connection connection, String prelude, String explainSql,
            PreparedStatementSetter parameters) throws SQLException {
        List<String> rows = PreludedQuery.firstColumn(connection, prelude, explainSql, parameters);
        assertThat(rows).as("a plan for %s", explainSql).hasSize(1);
        return JSON.readTree(rows.get(0));
    }

    static void execute(Connection connection, String... statements) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    /** Every node of a JSON tree, depth first. */
    static Stream<JsonNode> nodes(JsonNode node) {
        return Stream.concat(Stream.of(node), node.isContainer()
                ? node.valueStream().flatMap(AbstractStatementPlanTest::nodes) : Stream.empty());
    }

    /** Ids of NEW records, oldest first, for the deliveries: made-up ones on an empty table. */
    private static List<String> newRecordIds(Connection connection) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(
                "SELECT id FROM " + RECORD_TABLE + " WHERE status = 'NEW' ORDER BY sequence_no LIMIT "
                        + HotStatements.BATCH)) {
            while (rows.next()) {
                ids.add(rows.getString(1));
            }
        }
        for (int i = ids.size(); i < HotStatements.BATCH; i++) {
            ids.add(java.util.UUID.randomUUID().toString());
        }
        return ids;
    }
}
