package dev.outbox.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.boot.NamedOutboxesAutoConfiguration;
import dev.outbox.boot.OutboxHandlersAutoConfiguration;
import dev.outbox.boot.OutboxProcessingAutoConfiguration;
import dev.outbox.boot.OutboxStoreAutoConfiguration;
import dev.outbox.boot.OutboxWriteAutoConfiguration;
import dev.outbox.partition.PartitionHasher;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.RequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The console in a servlet application on H2: its page and its JSON (operations: {@link ConsoleOperationsTest}). */
class ConsoleTest {

    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Spring Security is on this module's test class path for ConsoleSecurityTest; these applications have none. */
    private final WebApplicationContextRunner runner = application()
            .withClassLoader(new FilteredClassLoader("org.springframework.security"));

    /** An application on a database of its own, with the console and a processor that fails every record. */
    static WebApplicationContextRunner application() {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class,
                        org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration.class,
                        org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration.class,
                        org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration.class,
                        HttpMessageConvertersAutoConfiguration.class,
                        org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration.class,
                        org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration.class,
                        OutboxStoreAutoConfiguration.class,
                        OutboxHandlersAutoConfiguration.class,
                        OutboxWriteAutoConfiguration.class,
                        OutboxProcessingAutoConfiguration.class,
                        NamedOutboxesAutoConfiguration.class,
                        OutboxConsoleAutoConfiguration.class))
                .withUserConfiguration(SwitchableProcessor.class)
                .withPropertyValues(
                        "spring.datasource.url=jdbc:h2:mem:console_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                        "outbox.schema-initialization.enabled=true",
                        "outbox.retry.max-retries=0",
                        "outbox.instance.id=node-a",
                        "outbox.instance.heartbeat-interval-seconds=1",
                        "outbox.instance.stale-instance-timeout-seconds=5",
                        "outbox.instance.new-instance-detection-interval-seconds=1",
                        "outbox.metrics.refresh-interval=100ms");
    }

    @Test
    void thePageAndItsScriptsAreServedAtTheDefaultPath() {
        runner.run(context -> {
            MockMvc mvc = mvc(context);

            MockHttpServletResponse page = perform(mvc, get("/outbox-console"));
            assertThat(page.getStatus()).isEqualTo(200);
            assertThat(page.getContentType()).startsWith("text/html");
            assertThat(page.getContentAsString())
                    .contains("<meta name=\"outbox-console-base\" content=\"/outbox-console\">")
                    .contains("<script type=\"module\" src=\"/outbox-console/assets/console.js\"></script>")
                    .contains("id=\"partition-grid\"", "id=\"failed-records\"", "id=\"instances\"")
                    .doesNotContain("{{");
            assertThat(perform(mvc, get("/outbox-console/")).getStatus()).isEqualTo(200);
            MockHttpServletResponse script = perform(mvc, get("/outbox-console/assets/console.js"));
            assertThat(script.getStatus()).isEqualTo(200);
            assertThat(script.getContentAsString()).contains("import { get, post } from './api.js';");
            for (String asset : List.of("api.js", "render.js", "console.css")) {
                assertThat(perform(mvc, get("/outbox-console/assets/" + asset)).getStatus()).as(asset).isEqualTo(200);
            }
        });
    }

    @Test
    void thePageAndItsJsonMoveToACustomPath() {
        runner.withPropertyValues("outbox.console.path=/ops/outbox").run(context -> {
            MockMvc mvc = mvc(context);

            MockHttpServletResponse page = perform(mvc, get("/ops/outbox"));
            assertThat(page.getStatus()).isEqualTo(200);
            assertThat(page.getContentAsString()).contains("content=\"/ops/outbox\"")
                    .contains("src=\"/ops/outbox/assets/console.js\"");
            assertThat(perform(mvc, get("/ops/outbox/assets/console.js")).getStatus()).isEqualTo(200);
            assertThat(perform(mvc, get("/ops/outbox/api/overview")).getStatus()).isEqualTo(200);
            assertThat(perform(mvc, get("/outbox-console")).getStatus()).isEqualTo(404);
            assertThat(perform(mvc, get("/outbox-console/api/overview")).getStatus()).isEqualTo(404);
        });
    }

    @Test
    void theOverviewHoldsThe256PartitionsAndTheInstance() {
        runner.run(context -> {
            MockMvc mvc = mvc(context);

            JsonNode overview = await().atMost(PATIENCE).until(() -> json(mvc, get("/outbox-console/api/overview")),
                    answer -> answer.get("instances").size() == 1
                            && answer.get("instances").get(0).get("instance").get("ownedPartitions").asInt() == 256);

            JsonNode partitions = overview.get("partitions");
            assertThat(partitions).hasSize(256);
            for (int partition = 0; partition < 256; partition++) {
                JsonNode view = partitions.get(partition);
                assertThat(view.get("partition").asInt()).isEqualTo(partition);
                assertThat(view.get("owner").asString()).isEqualTo("node-a");
                assertThat(view.get("ownerLive").asBoolean()).isTrue();
                assertThat(view.get("epoch").asLong()).isPositive();
                assertThat(view.get("pending").asLong()).isZero();
            }
            JsonNode instance = overview.get("instances").get(0);
            assertThat(instance.get("instance").get("id").asString()).isEqualTo("node-a");
            assertThat(instance.get("instance").get("heartbeatAgeSeconds").asDouble()).isBetween(0.0, 5.0);
            assertThat(overview.get("departed")).isEmpty();
            assertThat(overview.get("records").has("failed")).isTrue();
            assertThat(overview.get("takenAt").isNull()).isFalse();
            assertThat(overview.get("operations").get("allowed").asBoolean()).isFalse();
            assertThat(overview.get("operations").get("refusal").asString())
                    .contains("outbox.console.operations-enabled=true");

            MockHttpServletResponse unknown = perform(mvc, get("/outbox-console/api/overview?outbox=nope"));
            assertThat(unknown.getStatus()).isEqualTo(404);
            assertThat(unknown.getContentAsString()).contains("no outbox is named 'nope'");
        });
    }

    @Test
    void failedRecordsAreListedAndTheFiltersNarrowThem() {
        runner.run(context -> {
            MockMvc mvc = mvc(context);
            List<String> ids = threeFailedRecords(context, mvc);

            JsonNode byAggregate = json(mvc, get("/outbox-console/api/failed-records?aggregateId=order-2"));
            assertThat(recordIds(byAggregate)).containsExactly(ids.get(1));
            JsonNode listed = byAggregate.get("records").get(0);
            assertThat(listed.get("record").get("aggregateId").asString()).isEqualTo("order-2");
            assertThat(listed.get("record").get("retryCount").isNull()).isFalse();
            assertThat(listed.get("record").get("lastError").asString()).contains("downstream refuses");
            assertThat(listed.get("payload").asString()).contains("second");
            assertThat(listed.get("newBehind").asLong()).as("nothing held back yet").isZero();
            Outbox outbox = context.getBean(Outbox.class);
            outbox.schedule(new Ping("held back 1"), "order-2");
            outbox.schedule(new Ping("held back 2"), "order-2");
            JsonNode holding = json(mvc, get("/outbox-console/api/failed-records?aggregateId=order-2"));
            assertThat(recordIds(holding)).as("the later records wait NEW behind it").containsExactly(ids.get(1));
            assertThat(holding.get("records").get(0).get("newBehind").asLong()).isEqualTo(2);

            String pongType = all(mvc).get("records").get(2).get("record").get("eventType").asString();
            JsonNode byType = json(mvc, get("/outbox-console/api/failed-records").param("eventType", pongType));
            assertThat(recordIds(byType)).containsExactly(ids.get(2));
            JsonNode byHandler = json(mvc, get("/outbox-console/api/failed-records?handlerId=no-such-handler"));
            assertThat(recordIds(byHandler)).isEmpty();
            JsonNode limited = json(mvc, get("/outbox-console/api/failed-records?limit=2"));
            assertThat(recordIds(limited)).containsExactly(ids.get(0), ids.get(1));
            assertThat(limited.get("truncated").asBoolean()).isTrue();
            MockHttpServletResponse badLimit = perform(mvc, get("/outbox-console/api/failed-records?limit=0"));
            assertThat(badLimit.getStatus()).isEqualTo(400);
            assertThat(badLimit.getContentAsString()).contains("limit");
        });
    }

    @Test
    void aPartitionsDetailCountsItsRecordsInTheDatabase() {
        runner.run(context -> {
            MockMvc mvc = mvc(context);
            threeFailedRecords(context, mvc);
            int partition = PartitionHasher.partitionOf("order-2");
            long failedThere = List.of("order-1", "order-2", "order-3").stream()
                    .filter(aggregate -> PartitionHasher.partitionOf(aggregate) == partition).count();
            String created = all(mvc).get("records").get(1).get("record").get("createdAt").asString();

            JsonNode detail = await().atMost(PATIENCE).until(
                    () -> json(mvc, get("/outbox-console/api/partitions/" + partition)),
                    answer -> answer.get("owner").toString().equals("\"node-a\""));

            assertThat(detail.get("partition").asInt()).isEqualTo(partition);
            assertThat(detail.get("ownerLive").asBoolean()).isTrue();
            assertThat(detail.get("epoch").asLong()).isPositive();
            assertThat(detail.get("failed").asLong()).isEqualTo(failedThere);
            assertThat(detail.get("newRecords").asLong()).isZero();
            assertThat(detail.get("notYetDue").asLong()).isZero();
            assertThat(detail.get("oldestNewCreatedAt").isNull()).isTrue();
            if (failedThere == 1) {
                assertThat(Instant.parse(detail.get("oldestFailedCreatedAt").asString()))
                        .isEqualTo(Instant.parse(created));
            }
            assertThat(detail.get("oldestFailedAgeSeconds").asDouble()).isPositive();
            for (String bad : List.of("256", "-1", "x", "1000")) {
                MockHttpServletResponse refused = perform(mvc, get("/outbox-console/api/partitions/" + bad));
                assertThat(refused.getStatus()).as(bad).isEqualTo(400);
                assertThat(JSON.readTree(refused.getContentAsString()).get("error").asString())
                        .startsWith("partition must be");
            }
        });
    }

    @Test
    void failedRecordsArePagedFromTheDatabaseWithACursorInEitherOrder() {
        runner.run(context -> {
            MockMvc mvc = mvc(context);
            List<String> ids = threeFailedRecords(context, mvc);

            JsonNode first = json(mvc, get("/outbox-console/api/failed-records?limit=2"));
            assertThat(recordIds(first)).containsExactly(ids.get(0), ids.get(1));
            assertThat(first.get("order").asString()).isEqualTo("oldest");
            String cursor = first.get("nextCursor").asString();
            JsonNode second = json(mvc, get("/outbox-console/api/failed-records?limit=2").param("after", cursor));
            assertThat(recordIds(second)).as("the second page holds the rest").containsExactly(ids.get(2));
            assertThat(second.get("nextCursor").isNull()).as("the last page").isTrue();
            assertThat(second.get("truncated").asBoolean()).isFalse();

            JsonNode newest = json(mvc, get("/outbox-console/api/failed-records?order=newest&limit=2"));
            assertThat(recordIds(newest)).containsExactly(ids.get(2), ids.get(1));
            JsonNode older = json(mvc, get("/outbox-console/api/failed-records?order=newest&limit=2")
                    .param("after", newest.get("nextCursor").asString()));
            assertThat(recordIds(older)).containsExactly(ids.get(0));

            MockHttpServletResponse badCursor = perform(mvc, get("/outbox-console/api/failed-records?after=x1"));
            assertThat(badCursor.getStatus()).isEqualTo(400);
            assertThat(badCursor.getContentAsString()).contains("after");
            MockHttpServletResponse badOrder = perform(mvc, get("/outbox-console/api/failed-records?order=up"));
            assertThat(badOrder.getStatus()).isEqualTo(400);
            assertThat(badOrder.getContentAsString()).contains("order must be 'oldest' or 'newest'");
        });
    }

    @Test
    void theErrorTextAndTheAgeOfTheLastAttemptNarrowTheListAndTheCount() {
        runner.run(context -> {
            MockMvc mvc = mvc(context);
            List<String> ids = threeFailedRecords(context, mvc);
            JdbcTemplate database = new JdbcTemplate(context.getBean(DataSource.class));

            JsonNode byError = json(mvc, get("/outbox-console/api/failed-records").param("errorContains",
                    "refuses " + ids.get(1).toUpperCase(Locale.ROOT)));
            assertThat(recordIds(byError)).as("without regard to case").containsExactly(ids.get(1));
            assertThat(count(mvc, "?errorContains=DOWNSTREAM")).isEqualTo(3);
            assertThat(count(mvc, "?errorContains=timeout")).isZero();
            assertThat(count(mvc, "?aggregateId=order-2")).isEqualTo(1);
            assertThat(count(mvc, "")).isEqualTo(3);

            database.update("update outbox_record set next_retry_at = ? where id = ?",
                    Timestamp.from(Instant.now().minus(Duration.ofDays(2))), ids.get(0));
            JsonNode lastDay = json(mvc, get("/outbox-console/api/failed-records?failedWithin=P1D"));
            assertThat(recordIds(lastDay)).containsExactly(ids.get(1), ids.get(2));
            assertThat(count(mvc, "?failedWithin=P1D")).isEqualTo(2);
            assertThat(count(mvc, "?failedWithin=P7D")).isEqualTo(3);
            MockHttpServletResponse badAge = perform(mvc,
                    get("/outbox-console/api/failed-records/count?failedWithin=1h"));
            assertThat(badAge.getStatus()).isEqualTo(400);
            assertThat(badAge.getContentAsString()).contains("failedWithin");
        });
    }

    /** The age of a record is when it was created: the last attempt of the old one fell due now, like the others. */
    @Test
    void theCreationTimeNarrowsTheListAndTheCount() {
        runner.run(context -> {
            MockMvc mvc = mvc(context);
            List<String> ids = threeFailedRecords(context, mvc);
            JdbcTemplate database = new JdbcTemplate(context.getBean(DataSource.class));
            Instant twoDaysAgo = Instant.now().minus(Duration.ofDays(2)).truncatedTo(ChronoUnit.SECONDS);
            database.update("update outbox_record set created_at = ? where id = ?", Timestamp.from(twoDaysAgo),
                    ids.get(0));

            JsonNode lastDay = json(mvc, get("/outbox-console/api/failed-records?createdWithin=P1D"));
            assertThat(recordIds(lastDay)).containsExactly(ids.get(1), ids.get(2));
            assertThat(count(mvc, "?createdWithin=P1D")).isEqualTo(2);
            assertThat(count(mvc, "?createdWithin=P7D")).isEqualTo(3);
            assertThat(count(mvc, "?failedWithin=P1D")).as("the last attempts all fell due just now").isEqualTo(3);
            String aDayAgo = Instant.now().minus(Duration.ofDays(1)).toString();
            JsonNode older = json(mvc, get("/outbox-console/api/failed-records?order=newest")
                    .param("createdBefore", aDayAgo));
            assertThat(recordIds(older)).containsExactly(ids.get(0));
            assertThat(count(mvc, "?createdFrom=" + aDayAgo)).isEqualTo(2);
            assertThat(count(mvc, "?createdFrom=" + twoDaysAgo)).as("from is inclusive").isEqualTo(3);

            for (String bad : List.of("createdWithin=1d", "createdFrom=yesterday",
                    "createdBefore=2026-13-01T00:00:00Z", "createdWithin=P1D&createdFrom=" + aDayAgo)) {
                MockHttpServletResponse refused = perform(mvc, get("/outbox-console/api/failed-records?" + bad));
                assertThat(refused.getStatus()).as(bad).isEqualTo(400);
                assertThat(refused.getContentAsString()).as(bad).contains(bad.substring(0, bad.indexOf('=')));
            }
        });
    }

    @Test
    void disabledTheConsoleExposesNothing() {
        runner.withPropertyValues("outbox.console.enabled=false").run(context -> {
            MockMvc mvc = mvc(context);

            assertThat(context).doesNotHaveBean(ConsoleApiController.class).doesNotHaveBean(ConsoleOutboxes.class);
            assertThat(perform(mvc, get("/outbox-console")).getStatus()).isEqualTo(404);
            assertThat(perform(mvc, get("/outbox-console/api/overview")).getStatus()).isEqualTo(404);
            assertThat(perform(mvc, get("/outbox-console/assets/console.js")).getStatus()).isEqualTo(404);
            assertThat(perform(mvc, post("/outbox-console/api/retry-all")).getStatus()).isEqualTo(404);
            assertThat(perform(mvc, get("/outbox-console/api/failed-records/count")).getStatus()).isEqualTo(404);
        });
    }

    /** Three records the processor fails: order-1 and order-2 are Pings, order-3 a Pong; their ids in that order. */
    static List<String> threeFailedRecords(AssertableWebApplicationContext context, MockMvc mvc) {
        Outbox outbox = context.getBean(Outbox.class);
        outbox.schedule(new Ping("first"), "order-1");
        outbox.schedule(new Ping("second"), "order-2");
        outbox.schedule(new Pong("third"), "order-3");
        JsonNode listed = await().atMost(PATIENCE).until(() -> all(mvc), answer -> answer.get("records").size() == 3);
        List<String> aggregates = new ArrayList<>();
        listed.get("records").forEach(view -> aggregates.add(view.get("record").get("aggregateId").asString()));
        assertThat(aggregates).containsExactly("order-1", "order-2", "order-3");
        return recordIds(listed);
    }

    static long count(MockMvc mvc, String query) throws Exception {
        return json(mvc, get("/outbox-console/api/failed-records/count" + query)).get("count").asLong();
    }

    static JsonNode all(MockMvc mvc) throws Exception {
        return json(mvc, get("/outbox-console/api/failed-records"));
    }

    static List<String> recordIds(JsonNode answer) {
        List<String> ids = new ArrayList<>();
        answer.get("records").forEach(view -> ids.add(view.get("record").get("id").asString()));
        return ids;
    }

    static List<String> status(JdbcTemplate database, String id) {
        return database.queryForList("select status from outbox_record where id = ?", String.class, id);
    }

    static JsonNode last(JsonNode array) {
        return array.get(array.size() - 1);
    }

    static MockMvc mvc(AssertableWebApplicationContext context) {
        return MockMvcBuilders.webAppContextSetup(context).build();
    }

    static MockHttpServletResponse perform(MockMvc mvc, RequestBuilder request) throws Exception {
        return mvc.perform(request).andReturn().getResponse();
    }

    static JsonNode json(MockMvc mvc, RequestBuilder request) throws Exception {
        MockHttpServletResponse response = perform(mvc, request);
        assertThat(response.getStatus()).as(response.getContentAsString()).isEqualTo(200);
        return JSON.readTree(response.getContentAsString());
    }

    record Ping(String value) {
    }

    record Pong(String value) {
    }

    static class BillingDatabase {
        @Bean(defaultCandidate = false)
        static DataSource billingDataSource() {
            return new DriverManagerDataSource("jdbc:h2:mem:billing_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        }
    }

    /** Fails every record until told otherwise, so that retried records then complete. */
    static class SwitchableProcessor {
        final AtomicBoolean failing = new AtomicBoolean(true);

        @Bean
        OutboxRecordProcessor switchableProcessor() {
            return record -> {
                if (failing.get()) {
                    throw new IllegalStateException("downstream refuses " + record.getId());
                }
            };
        }
    }
}
