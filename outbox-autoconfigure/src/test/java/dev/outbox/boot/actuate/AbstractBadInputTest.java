package dev.outbox.boot.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.boot.NamedOutboxes;
import dev.outbox.boot.NamedOutboxesAutoConfiguration;
import dev.outbox.boot.OutboxHandlersAutoConfiguration;
import dev.outbox.boot.OutboxProcessingAutoConfiguration;
import dev.outbox.boot.OutboxStoreAutoConfiguration;
import dev.outbox.boot.OutboxWriteAutoConfiguration;
import dev.outbox.boot.actuate.OutboxEndpoint.AdminError;
import dev.outbox.boot.actuate.OutboxEndpoint.AdminResult;
import dev.outbox.boot.testing.DatabasePerTestClass;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 29, bad input: every write operation of {@code /actuator/outbox} and {@code /actuator/outboxes/{name}} answers
 * 400 naming the parameter for a value the database cannot store or compare (U+0000, an unpaired surrogate) or that is
 * longer than its column, changes no row, and repeats at most a short, escaped prefix of what it was sent. One
 * subclass per database, since each treats such text its own way (PostgreSQL refuses U+0000; its driver sends an
 * unpaired surrogate as '?').
 */
abstract class AbstractBadInputTest extends DatabasePerTestClass {

    /** What a refusal may weigh as JSON: the message, the allowed actions and a 100-character excerpt, escaped. */
    private static final int MAX_REFUSAL_BYTES = 1_000;
    private static final String TEN_MEGABYTES = "x".repeat(10 * 1024 * 1024);
    /** What the database cannot store or compare, at the start, inside and at the end of a value. */
    private static final List<String> UNSTORABLE = List.of("\u0000", "Ping\u0000", "\uD800", "Ping\uDC00",
            "\uDBFF?");

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class,
                        org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration.class,
                        org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration.class,
                        org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration.class,
                        OutboxStoreAutoConfiguration.class,
                        OutboxHandlersAutoConfiguration.class,
                        OutboxWriteAutoConfiguration.class,
                        OutboxProcessingAutoConfiguration.class,
                        NamedOutboxesAutoConfiguration.class,
                        OutboxActuatorAutoConfiguration.class))
                .withPropertyValues(dataSourceProperties().toArray(String[]::new))
                .withPropertyValues(
                        "outbox.instance.id=node-a",
                        "outbox.processing.enabled=false",
                        "outbox.schema-initialization.enabled=true",
                        "outbox.outboxes.billing.data-source=dataSource",
                        "outbox.outboxes.billing.table-prefix=billing_",
                        "outbox.outboxes.billing.schema-initialization.enabled=true");
    }

    @Test
    final void theDefaultEndpointRefusesValuesTheDatabaseCannotStoreNamingTheParameterAndChangesNothing() {
        runner().run(context -> {
            OutboxEndpoint endpoint = context.getBean(OutboxEndpoint.class);
            String failedId = seedFailedRecords(context.getBean(OutboxRecordRepository.class), jdbc(context),
                    "outbox_record");
            assertRefusesBadValues(context, "outbox_record", failedId,
                    (recordId, action) -> endpoint.act(recordId, action), endpoint::actOnAll);
        });
    }

    @Test
    final void aNamedOutboxsEndpointRefusesValuesTheDatabaseCannotStoreNamingTheParameterAndChangesNothing() {
        runner().run(context -> {
            NamedOutboxesEndpoint endpoint = context.getBean(NamedOutboxesEndpoint.class);
            String failedId = seedFailedRecords(context.getBean(NamedOutboxes.class).get("billing").repository(),
                    jdbc(context), "billing_record");
            assertRefusesBadValues(context, "billing_record", failedId,
                    (recordId, action) -> endpoint.act("billing", recordId, action),
                    (action, eventType, aggregateId, handlerId, errorContains, dueFrom, dueBefore, createdFrom,
                            createdBefore) -> endpoint.actOnAll("billing", action, eventType, aggregateId, handlerId,
                                    errorContains, dueFrom, dueBefore, createdFrom, createdBefore));
        });
    }

    @Test
    final void aTenMegabyteActionOrNameIsAnsweredWithAShortBodyThatStatesItsLength() {
        runner().run(context -> {
            OutboxEndpoint endpoint = context.getBean(OutboxEndpoint.class);
            NamedOutboxesEndpoint named = context.getBean(NamedOutboxesEndpoint.class);
            JsonMapper json = context.getBean(JsonMapper.class);

            for (WebEndpointResponse<Object> answer : List.of(endpoint.act("some-id", TEN_MEGABYTES),
                    endpoint.actOnAll(TEN_MEGABYTES, null, null, null, null, null, null, null, null),
                    named.act("billing", "some-id", TEN_MEGABYTES),
                    named.actOnAll("billing", TEN_MEGABYTES, null, null, null, null, null, null, null, null))) {
                assertThat(answer.getStatus()).isEqualTo(400);
                String body = json.writeValueAsString(answer.getBody());
                assertThat(body.getBytes(StandardCharsets.UTF_8)).hasSizeLessThan(MAX_REFUSAL_BYTES);
                assertThat(body).contains("unknown action 'xxxxxxxxxx").contains("(10485760 characters)");
            }
            for (WebEndpointResponse<Object> answer : List.of(named.act(TEN_MEGABYTES, "some-id", "retry"),
                    named.actOnAll(TEN_MEGABYTES, "retry-all", null, null, null, null, null, null, null, null))) {
                assertThat(answer.getStatus()).isEqualTo(404);
                assertThat(json.writeValueAsString(answer.getBody()).getBytes(StandardCharsets.UTF_8))
                        .hasSizeLessThan(MAX_REFUSAL_BYTES);
            }
            WebEndpointResponse<Object> hugeFilter = endpoint.actOnAll("retry-all", TEN_MEGABYTES, null, null, null,
                    null, null, null, null);
            assertThat(hugeFilter.getStatus()).isEqualTo(400);
            assertThat(((AdminError) hugeFilter.getBody()).error())
                    .isEqualTo("eventType is 10485760 characters long; the limit is 255 characters");
        });
    }

    private void assertRefusesBadValues(AssertableApplicationContext context, String table, String failedId,
            RecordOperation act, AllOperation actOnAll) {
        JsonMapper json = context.getBean(JsonMapper.class);
        List<Map<String, Object>> before = rows(context, table);
        Map<String, Function<String, WebEndpointResponse<Object>>> filterParameters = Map.of(
                "eventType", value -> actOnAll.act("retry-all", value, null, null, null, null, null, null, null),
                "aggregateId", value -> actOnAll.act("skip-all", null, value, null, null, null, null, null, null),
                "handlerId", value -> actOnAll.act("delete-all", null, null, value, null, null, null, null, null),
                "errorContains", value -> actOnAll.act("skip-all", null, null, null, value, null, null, null, null),
                "lastAttemptDueFrom", value -> actOnAll.act("retry-all", null, null, null, null, value, null, null,
                        null),
                "lastAttemptDueBefore", value -> actOnAll.act("delete-all", null, null, null, null, null, value, null,
                        null),
                "createdFrom", value -> actOnAll.act("retry-all", null, null, null, null, null, null, value, null),
                "createdBefore", value -> actOnAll.act("delete-all", null, null, null, null, null, null, null,
                        value));
        String tooLong = "x".repeat(OutboxRecord.MAX_EVENT_TYPE_LENGTH + 1);

        for (String bad : UNSTORABLE) {
            filterParameters.forEach((parameter, retryAll) ->
                    assertRefused(json, retryAll.apply(bad), parameter + " "));
            for (String action : List.of("retry", "skip", "delete")) {
                assertRefused(json, act.act(bad, action), "recordId ");
                assertRefused(json, act.act(failedId + bad, action), "recordId ");
            }
            assertRefused(json, act.act(failedId, bad), "unknown action '");
            assertRefused(json, actOnAll.act(bad, null, null, null, null, null, null, null, null),
                    "unknown action '");
        }
        filterParameters.forEach((parameter, retryAll) -> {
            if (!parameter.equals("errorContains") && !parameter.startsWith("lastAttemptDue")
                    && !parameter.startsWith("created")) {
                assertRefused(json, retryAll.apply(tooLong),
                        parameter + " is 256 characters long; the limit is 255 characters");
            }
        });
        assertRefused(json, actOnAll.act("delete-all", null, null, null, "e".repeat(OutboxRecord.MAX_ERROR_LENGTH + 1),
                        null, null, null, null),
                "errorContains is 2001 characters long; the limit is 2000 characters");
        assertRefused(json, act.act("r".repeat(OutboxRecord.MAX_ID_LENGTH + 1), "retry"),
                "recordId is 65 characters long; the limit is 64 characters");

        assertThat(rows(context, table)).as("no row changed").isEqualTo(before);
        assertThat(act.act(failedId, "retry").getBody()).as("good input still works")
                .isEqualTo(new AdminResult("retry", 1));
    }

    private static void assertRefused(JsonMapper json, WebEndpointResponse<Object> answer, String errorStart) {
        assertThat(answer.getStatus()).as("status of %s", answer.getBody()).isEqualTo(400);
        assertThat(answer.getBody()).isInstanceOf(AdminError.class);
        assertThat(((AdminError) answer.getBody()).error()).startsWith(errorStart);
        String body = json.writeValueAsString(answer.getBody());
        assertThat(body.getBytes(StandardCharsets.UTF_8)).hasSizeLessThan(MAX_REFUSAL_BYTES);
        assertThat(body).doesNotContain("\u0000");
    }

    /**
     * FAILED records, among them one whose every text is '?', which is what PostgreSQL's driver makes of an unpaired
     * surrogate: a filter holding one must not reach it.
     */
    private static String seedFailedRecords(OutboxRecordRepository repository, JdbcTemplate jdbc, String table) {
        OutboxRecord ping = repository.save(OutboxRecord.builder().aggregateId("order-1").eventType("Ping")
                .handlerId("ledger").payload("{}").build(Clock.systemUTC()));
        repository.save(OutboxRecord.builder().aggregateId("?").eventType("?").handlerId("?").payload("{}")
                .build(Clock.systemUTC()));
        jdbc.update("UPDATE " + table + " SET status = 'FAILED', retry_count = 3, last_error = 'gave up'");
        return ping.getId();
    }

    private static List<Map<String, Object>> rows(AssertableApplicationContext context, String table) {
        return jdbc(context).queryForList("SELECT id, status, retry_count, next_retry_at, last_error FROM " + table
                + " ORDER BY id");
    }

    private static JdbcTemplate jdbc(AssertableApplicationContext context) {
        return new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
    }

    @FunctionalInterface
    private interface RecordOperation {
        WebEndpointResponse<Object> act(String recordId, String action);
    }

    @FunctionalInterface
    private interface AllOperation {
        WebEndpointResponse<Object> act(String action, @Nullable String eventType, @Nullable String aggregateId,
                @Nullable String handlerId, @Nullable String errorContains, @Nullable String lastAttemptDueFrom,
                @Nullable String lastAttemptDueBefore, @Nullable String createdFrom, @Nullable String createdBefore);
    }
}
