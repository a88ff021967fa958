package dev.outbox.console;

import static dev.outbox.console.ConsoleTest.all;
import static dev.outbox.console.ConsoleTest.count;
import static dev.outbox.console.ConsoleTest.json;
import static dev.outbox.console.ConsoleTest.last;
import static dev.outbox.console.ConsoleTest.mvc;
import static dev.outbox.console.ConsoleTest.perform;
import static dev.outbox.console.ConsoleTest.recordIds;
import static dev.outbox.console.ConsoleTest.status;
import static dev.outbox.console.ConsoleTest.threeFailedRecords;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import dev.outbox.boot.NamedOutboxes;
import dev.outbox.console.ConsoleTest.BillingDatabase;
import dev.outbox.console.ConsoleTest.Ping;
import dev.outbox.console.ConsoleTest.SwitchableProcessor;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.RequestBuilder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The console's operations in a servlet application on H2 ({@link ConsoleTest#application()}): their gates, and
 * their effects in the database, one record and bulk, for the default and a named outbox.
 */
class ConsoleOperationsTest {

    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Spring Security is on this module's test class path for ConsoleSecurityTest; these applications have none. */
    private final WebApplicationContextRunner runner = ConsoleTest.application()
            .withClassLoader(new FilteredClassLoader("org.springframework.security"));

    @Test
    void skipAllAndDeleteAllChangeExactlyTheMatchingRecordsInTheDatabase() {
        runner.withPropertyValues("outbox.console.operations-enabled=true",
                "outbox.console.allow-operations-without-security=true").run(context -> {
            MockMvc mvc = mvc(context);
            List<String> ids = threeFailedRecords(context, mvc);
            JdbcTemplate database = new JdbcTemplate(context.getBean(DataSource.class));
            String pingType = all(mvc).get("records").get(0).get("record").get("eventType").asString();

            assertThat(count(mvc, "?eventType=" + pingType)).isEqualTo(2);
            JsonNode skipped = json(mvc, post("/outbox-console/api/skip-all").param("eventType", pingType));
            assertThat(skipped.get("action").asString()).isEqualTo("skip-all");
            assertThat(skipped.get("records").asInt()).isEqualTo(2);
            assertThat(status(database, ids.get(0))).containsExactly("SKIPPED");
            assertThat(status(database, ids.get(1))).containsExactly("SKIPPED");
            assertThat(status(database, ids.get(2))).as("another event type").containsExactly("FAILED");

            JsonNode deleted = json(mvc, post("/outbox-console/api/delete-all?errorContains=" + ids.get(2)));
            assertThat(deleted.get("records").asInt()).isEqualTo(1);
            assertThat(status(database, ids.get(2))).isEmpty();
            assertThat(database.queryForList("select status from outbox_record order by aggregate_id", String.class))
                    .as("only FAILED records are deleted").containsExactly("SKIPPED", "SKIPPED");
            assertThat(count(mvc, "")).isZero();
        });
    }

    /** The page counts with failedWithin, then acts with the bound the count answered: the records counted. */
    @Test
    void aBulkRetryBoundedByFailedWithinTouchesOnlyTheRecentRecords() {
        runner.withPropertyValues("outbox.console.operations-enabled=true",
                "outbox.console.allow-operations-without-security=true").run(context -> {
            MockMvc mvc = mvc(context);
            List<String> ids = threeFailedRecords(context, mvc);
            JdbcTemplate database = new JdbcTemplate(context.getBean(DataSource.class));
            database.update("update outbox_record set next_retry_at = ? where id = ?",
                    Timestamp.from(Instant.now().minus(Duration.ofDays(2))), ids.get(0));
            context.getBean(SwitchableProcessor.class).failing.set(false);

            JsonNode counted = json(mvc, get("/outbox-console/api/failed-records/count?failedWithin=P1D"));
            assertThat(counted.get("count").asLong()).isEqualTo(2);
            String from = counted.get("lastAttemptDueFrom").asString();
            assertThat(Instant.parse(from)).isBetween(Instant.now().minus(Duration.ofDays(1)).minusSeconds(60),
                    Instant.now().minus(Duration.ofDays(1)));
            assertThat(counted.get("lastAttemptDueBefore").isNull()).isTrue();
            JsonNode retried = json(mvc, post("/outbox-console/api/retry-all").param("lastAttemptDueFrom", from));
            assertThat(retried.get("records").asInt()).as("what the count said").isEqualTo(2);
            await().atMost(PATIENCE).until(() -> status(database, ids.get(1)).equals(List.of("COMPLETED"))
                    && status(database, ids.get(2)).equals(List.of("COMPLETED")));
            assertThat(status(database, ids.get(0))).as("failed two days ago").containsExactly("FAILED");

            JsonNode withinADay = json(mvc, post("/outbox-console/api/skip-all?failedWithin=P1D"));
            assertThat(withinADay.get("records").asInt()).as("failedWithin itself bounds it too").isZero();
            for (String bad : List.of("failedWithin=P1D&lastAttemptDueFrom=" + from,
                    "lastAttemptDueFrom=yesterday", "lastAttemptDueBefore=2026-13-01T00:00:00Z",
                    "lastAttemptDueFrom=2026-02-01T00:00:00Z&lastAttemptDueBefore=2026-01-01T00:00:00Z")) {
                MockHttpServletResponse refused = perform(mvc, post("/outbox-console/api/delete-all?" + bad));
                assertThat(refused.getStatus()).as(bad).isEqualTo(400);
                assertThat(refused.getContentAsString()).contains(bad.substring(bad.lastIndexOf('&') + 1,
                        bad.lastIndexOf('=')));
            }
            MockHttpServletResponse emptyRange = perform(mvc, get("/outbox-console/api/failed-records/count"
                    + "?lastAttemptDueFrom=2026-02-01T00:00:00Z&lastAttemptDueBefore=2026-01-01T00:00:00Z"));
            assertThat(emptyRange.getStatus()).as("a range that holds no instant, counted").isEqualTo(400);
            assertThat(emptyRange.getContentAsString()).contains("must be before lastAttemptDueBefore");
            assertThat(status(database, ids.get(0))).containsExactly("FAILED");
        });
    }

    /** As with failedWithin: the count answers the creation bound it counted with, and the retry takes that one. */
    @Test
    void aBulkRetryBoundedByCreatedWithinTouchesOnlyTheRecentRecords() {
        runner.withPropertyValues("outbox.console.operations-enabled=true",
                "outbox.console.allow-operations-without-security=true").run(context -> {
            MockMvc mvc = mvc(context);
            List<String> ids = threeFailedRecords(context, mvc);
            JdbcTemplate database = new JdbcTemplate(context.getBean(DataSource.class));
            database.update("update outbox_record set created_at = ? where id = ?",
                    Timestamp.from(Instant.now().minus(Duration.ofDays(2))), ids.get(0));
            context.getBean(SwitchableProcessor.class).failing.set(false);

            JsonNode counted = json(mvc, get("/outbox-console/api/failed-records/count?createdWithin=P1D"));
            assertThat(counted.get("count").asLong()).isEqualTo(2);
            String from = counted.get("createdFrom").asString();
            assertThat(Instant.parse(from)).isBetween(Instant.now().minus(Duration.ofDays(1)).minusSeconds(60),
                    Instant.now().minus(Duration.ofDays(1)));
            assertThat(counted.get("createdBefore").isNull()).isTrue();
            assertThat(counted.get("lastAttemptDueFrom").isNull()).as("not the last attempt's bound").isTrue();

            for (String bad : List.of("createdWithin=P1D&createdFrom=" + from, "createdFrom=yesterday",
                    "createdBefore=2026-13-01T00:00:00Z",
                    "createdFrom=2026-02-01T00:00:00Z&createdBefore=2026-01-01T00:00:00Z")) {
                MockHttpServletResponse refused = perform(mvc, post("/outbox-console/api/retry-all?" + bad));
                assertThat(refused.getStatus()).as(bad).isEqualTo(400);
                assertThat(refused.getContentAsString()).contains(bad.substring(bad.lastIndexOf('&') + 1,
                        bad.lastIndexOf('=')));
            }
            MockHttpServletResponse emptyRange = perform(mvc, get("/outbox-console/api/failed-records/count"
                    + "?createdFrom=2026-02-01T00:00:00Z&createdBefore=2026-01-01T00:00:00Z"));
            assertThat(emptyRange.getStatus()).as("a range that holds no instant, counted").isEqualTo(400);
            assertThat(emptyRange.getContentAsString()).contains("createdFrom (2026-02-01T00:00:00Z) must be before "
                    + "createdBefore (2026-01-01T00:00:00Z)");
            assertThat(status(database, ids.get(0))).as("refused: nothing changed").containsExactly("FAILED");
            assertThat(count(mvc, "")).isEqualTo(3);

            JsonNode retried = json(mvc, post("/outbox-console/api/retry-all").param("createdFrom", from));
            assertThat(retried.get("records").asInt()).as("what the count said").isEqualTo(2);
            await().atMost(PATIENCE).until(() -> status(database, ids.get(1)).equals(List.of("COMPLETED"))
                    && status(database, ids.get(2)).equals(List.of("COMPLETED")));
            assertThat(status(database, ids.get(0))).as("created two days ago").containsExactly("FAILED");
            JsonNode withinADay = json(mvc, post("/outbox-console/api/skip-all?createdWithin=P1D"));
            assertThat(withinADay.get("records").asInt()).as("createdWithin itself bounds it too").isZero();
        });
    }

    /**
     * Deleting completed records, besides: the history's drain rate is known all the same, from the count the
     * instance publishes with its heartbeats; and the history's sampling stops with the context.
     */
    @Test
    void operationsAreRefusedByDefaultAndChangeNothing() {
        runner.withPropertyValues("outbox.processing.delete-completed-records=true").run(context -> {
            assertOperationsRefused(context, "outbox.console.operations-enabled");
            JsonNode drainRate = await().atMost(PATIENCE).until(() -> json(mvc(context),
                    get("/outbox-console/api/history")).get("drainRate"),
                    rate -> !rate.get("completedPerSecond").isNull());
            assertThat(drainRate.get("unknownBecause").isNull()).isTrue();

            ConsoleHistorySampler sampler = context.getBean(ConsoleHistorySampler.class);
            assertThat(sampler.isRunning()).isTrue();
            context.close();
            assertThat(sampler.isRunning()).as("stopped with the context").isFalse();
        });
    }

    @Test
    void withoutSpringSecurityOperationsNeedTheExplicitOptInToo() {
        runner.withPropertyValues("outbox.console.operations-enabled=true")
                .run(context -> assertOperationsRefused(context,
                        "outbox.console.allow-operations-without-security"));
    }

    @Test
    void allowedOperationsRetrySkipAndDeleteRecordsInTheDatabase() {
        runner.withPropertyValues("outbox.console.operations-enabled=true",
                "outbox.console.allow-operations-without-security=true",
                "outbox.metrics.count-completed-records=true").run(context -> {
            MockMvc mvc = mvc(context);
            List<String> ids = threeFailedRecords(context, mvc);
            JdbcTemplate database = new JdbcTemplate(context.getBean(DataSource.class));
            context.getBean(SwitchableProcessor.class).failing.set(false);
            // no page is open: the history is sampled all the same
            await().atMost(PATIENCE).until(() -> json(mvc, get("/outbox-console/api/history")),
                    answer -> last(answer.get("samples")).get("failed").asLong() == 3);
            // the heartbeats publish what the node completed: none yet, its three records failed
            await().atMost(PATIENCE).until(() -> recordsCompleted(database), Long.valueOf(0)::equals);

            assertThat(json(mvc, post("/outbox-console/api/records/" + ids.get(0) + "/skip")).get("records").asInt())
                    .isEqualTo(1);
            assertThat(status(database, ids.get(0))).containsExactly("SKIPPED");
            assertThat(json(mvc, post("/outbox-console/api/records/" + ids.get(0) + "/delete")).get("records")
                    .asInt()).isEqualTo(1);
            assertThat(status(database, ids.get(0))).isEmpty();

            assertThat(json(mvc, post("/outbox-console/api/records/" + ids.get(1) + "/retry")).get("records").asInt())
                    .isEqualTo(1);
            await().atMost(PATIENCE).until(() -> status(database, ids.get(1)), List.of("COMPLETED")::equals);
            assertThat(status(database, ids.get(2))).as("not retried").containsExactly("FAILED");

            JsonNode retried = json(mvc, post("/outbox-console/api/retry-all?aggregateId=order-3&handlerId="));
            assertThat(retried.get("action").asString()).isEqualTo("retry-all");
            assertThat(retried.get("records").asInt()).isEqualTo(1);
            await().atMost(PATIENCE).until(() -> status(database, ids.get(2)), List.of("COMPLETED")::equals);

            await().atMost(PATIENCE).until(() -> recordsCompleted(database), Long.valueOf(2)::equals);
            JsonNode history = await().atMost(PATIENCE).until(() -> json(mvc, get("/outbox-console/api/history")),
                    answer -> answer.get("drainRate").get("completedPerSecond").asDouble() > 0);
            assertThat(history.get("samples").valueStream().map(sample -> sample.get("failed").asLong()))
                    .as("retained").contains(3L, 0L);
            assertThat(last(history.get("samples")).get("pending").asLong()).isZero();
            assertThat(history.get("epochChanges").isObject()).isTrue();
            assertThat(perform(mvc, get("/outbox-console/api/history?outbox=nope")).getStatus()).isEqualTo(404);

            MockHttpServletResponse unknown = perform(mvc,
                    post("/outbox-console/api/records/" + ids.get(1) + "/purge"));
            assertThat(unknown.getStatus()).isEqualTo(400);
            assertThat(unknown.getContentAsString()).contains("unknown action 'purge'");
        });
    }

    @Test
    void eachNamedOutboxHasItsOwnViewAndOperations() {
        runner.withUserConfiguration(BillingDatabase.class)
                .withPropertyValues("outbox.outboxes.billing.data-source=billingDataSource",
                        "outbox.outboxes.billing.schema-initialization.enabled=true",
                        "outbox.console.operations-enabled=true",
                        "outbox.console.allow-operations-without-security=true")
                .run(context -> {
                    MockMvc mvc = mvc(context);
                    context.getBean(NamedOutboxes.class).outbox("billing").schedule(new Ping("invoice"), "invoice-1");

                    JsonNode billing = await().atMost(PATIENCE)
                            .until(() -> json(mvc, get("/outbox-console/api/failed-records?outbox=billing")),
                                    answer -> answer.get("records").size() == 1);
                    String id = recordIds(billing).get(0);
                    assertThat(billing.get("records").get(0).get("record").get("aggregateId").asString())
                            .isEqualTo("invoice-1");
                    assertThat(recordIds(all(mvc))).as("the default outbox has none").isEmpty();
                    JsonNode overview = await().atMost(PATIENCE)
                            .until(() -> json(mvc, get("/outbox-console/api/overview?outbox=billing")),
                                    answer -> answer.get("records").get("failed").asLong() == 1);
                    assertThat(overview.get("outbox").asString()).isEqualTo("billing");
                    await().atMost(PATIENCE).until(() -> json(mvc, get("/outbox-console/api/history?outbox=billing")),
                            answer -> last(answer.get("samples")).get("failed").asLong() == 1);
                    assertThat(overview.get("partitions")).hasSize(256);
                    assertThat(json(mvc, get("/outbox-console/api/overview")).get("outboxes").get(0).asString())
                            .isEqualTo("billing");

                    assertThat(json(mvc, post("/outbox-console/api/records/" + id + "/skip?outbox=billing"))
                            .get("records").asInt()).isEqualTo(1);
                    JdbcTemplate billingTables = new JdbcTemplate(context.getBean("billingDataSource",
                            DataSource.class));
                    assertThat(status(billingTables, id)).containsExactly("SKIPPED");
                });
    }

    /** Every operation is answered 403 naming {@code missingProperty}, the one that would allow it. */
    private void assertOperationsRefused(AssertableWebApplicationContext context, String missingProperty)
            throws Exception {
        MockMvc mvc = mvc(context);
        List<String> ids = threeFailedRecords(context, mvc);
        JdbcTemplate database = new JdbcTemplate(context.getBean(DataSource.class));
        context.getBean(SwitchableProcessor.class).failing.set(false);

        List<RequestBuilder> operations = List.of(
                post("/outbox-console/api/records/" + ids.get(0) + "/retry"),
                post("/outbox-console/api/records/" + ids.get(0) + "/skip"),
                post("/outbox-console/api/records/" + ids.get(0) + "/delete"),
                post("/outbox-console/api/retry-all"),
                post("/outbox-console/api/skip-all"),
                post("/outbox-console/api/delete-all?aggregateId=order-1"),
                post("/outbox-console/api/skip-all?failedWithin=P1D"));
        for (RequestBuilder operation : operations) {
            MockHttpServletResponse refused = perform(mvc, operation);
            assertThat(refused.getStatus()).isEqualTo(403);
            JsonNode error = JSON.readTree(refused.getContentAsString());
            assertThat(error.get("property").asString()).isEqualTo(missingProperty);
            assertThat(error.get("error").asString()).contains(missingProperty + "=true");
        }
        assertThat(database.queryForList("select status from outbox_record order by aggregate_id", String.class))
                .containsExactly("FAILED", "FAILED", "FAILED");
    }

    /** The count of completed records node-a's last heartbeat wrote into its row; null while unknown. */
    private static @Nullable Long recordsCompleted(JdbcTemplate database) {
        return database.queryForObject("select records_completed from outbox_instance where instance_id = 'node-a'",
                Long.class);
    }

}
