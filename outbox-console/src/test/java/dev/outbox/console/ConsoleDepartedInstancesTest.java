package dev.outbox.console;

import static dev.outbox.console.ConsoleTest.json;
import static dev.outbox.console.ConsoleTest.mvc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

import java.time.Duration;
import java.util.stream.StreamSupport;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.MockMvc;
import tools.jackson.databind.JsonNode;

/**
 * An instance whose row leaves the instance table, as a killed one's does when the takeover removes it, is shown
 * departed as the history last saw it, until it is live again; on H2 ({@link ConsoleTest#application()}), with a row
 * written by hand for an instance of another version.
 */
class ConsoleDepartedInstancesTest {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private final WebApplicationContextRunner runner = ConsoleTest.application()
            .withClassLoader(new FilteredClassLoader("org.springframework.security"));

    @Test
    void anInstanceGoneFromTheInstanceTableIsDepartedUntilItIsLiveAgain() {
        runner.run(context -> {
            MockMvc mvc = mvc(context);
            JdbcTemplate database = new JdbcTemplate(context.getBean(DataSource.class));
            insertRow(database);
            await().atMost(PATIENCE).until(() -> json(mvc, get("/outbox-console/api/overview")),
                    overview -> find(overview.get("instances"), "node-x") != null);
            assertThat(json(mvc, get("/outbox-console/api/overview")).get("departed")).as("live").isEmpty();

            database.update("delete from outbox_instance where instance_id = 'node-x'");
            JsonNode departed = await().atMost(PATIENCE).until(() -> json(mvc, get("/outbox-console/api/overview")),
                    overview -> overview.get("departed").size() == 1).get("departed").get(0);
            assertThat(departed.get("id").asString()).isEqualTo("node-x");
            assertThat(departed.get("hostname").asString()).isEqualTo("host-x");
            assertThat(departed.get("port").asInt()).isEqualTo(9090);
            assertThat(departed.get("version").asString()).isEqualTo("0.9.1");
            assertThat(departed.get("ownedPartitions").asInt()).isZero();
            assertThat(departed.get("lastHeartbeat").isNull()).isFalse();
            assertThat(departed.get("lastSeenAt").isNull()).isFalse();
            JsonNode overview = json(mvc, get("/outbox-console/api/overview"));
            assertThat(find(overview.get("instances"), "node-a")).as("the live instance stays live").isNotNull();

            insertRow(database);
            await().atMost(PATIENCE).until(() -> json(mvc, get("/outbox-console/api/overview")),
                    answer -> answer.get("departed").isEmpty() && find(answer.get("instances"), "node-x") != null);
        });
    }

    /**
     * A row as an instance of an older version writes it: with capabilities, without a count. Its heartbeat an hour
     * ahead keeps it live without heartbeats; SHUTTING_DOWN keeps node-a from handing it partitions.
     */
    private static void insertRow(JdbcTemplate database) {
        database.update("insert into outbox_instance (instance_id, hostname, port, status, started_at, last_heartbeat,"
                + " created_at, updated_at, handler_ids, event_types, record_processor, app_version) values ('node-x',"
                + " 'host-x', 9090, 'SHUTTING_DOWN', current_timestamp, current_timestamp + interval '1' hour,"
                + " current_timestamp, current_timestamp, '', '', true, '0.9.1')");
    }

    private static @Nullable JsonNode find(JsonNode instances, String id) {
        return StreamSupport.stream(instances.spliterator(), false)
                .filter(view -> view.get("instance").get("id").asString().equals(id)).findFirst().orElse(null);
    }
}
