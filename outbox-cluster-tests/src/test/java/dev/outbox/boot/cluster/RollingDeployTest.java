package dev.outbox.boot.cluster;

import static dev.outbox.boot.cluster.ClusterAssertions.freePort;
import static dev.outbox.boot.cluster.ClusterAssertions.name;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A rolling deploy on PostgreSQL with two versions in JVMs of their own: v1 has the handler {@code ledger}, v2 has
 * {@code ledger} and the new {@code mailer}. v2 writes events of both types through its own Outbox, half of them into
 * partitions v1 owns. The mailer's records there wait (NEW, no attempt used, later records of their aggregates behind
 * them) while everything else is handled; the deferral gauge counts them; once v1 stops, v2 takes its partitions and
 * handles them, each once and in its aggregate's order, and the gauge returns to 0.
 */
@ExtendWith(NodeLogsOnFailure.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RollingDeployTest {

    private static final int AGGREGATES = 200;
    private static final int MAILER_ROUNDS = 5;
    private static final int LEDGER_ROUNDS = 2;
    /** Deferred records are looked at again every second (5 s by default). */
    private static final String QUICK_DEFERRAL = "outbox.processing.deferral-interval=1s";
    private static final String DEFERRAL_WARNING = "deferring records no handler of this instance takes";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void recordsOfAHandlerOnlyTheNewVersionHasWaitForItAndNoneFails(TestInfo test) throws Exception {
        try (ClusterHarness cluster = ClusterHarness.create(name(test))) {
            cluster.startNode("v1", "cluster.handlers=ledger", "outbox.instance.version=1.0.0", QUICK_DEFERRAL);
            cluster.awaitUp("v1");
            cluster.awaitBalanced("v1");
            int port = freePort();
            cluster.startNode("v2", "cluster.handlers=ledger,mailer", "outbox.instance.version=2.0.0",
                    QUICK_DEFERRAL, "spring.main.web-application-type=servlet", "server.address=127.0.0.1",
                    "server.port=" + port, "management.endpoints.web.exposure.include=outbox,metrics",
                    "outbox.metrics.refresh-interval=200ms");
            cluster.awaitUp("v2");
            PartitionTable table = cluster.awaitBalanced("v1", "v2");
            URI v2 = URI.create("http://127.0.0.1:" + port);
            awaitHttp(cluster, v2.resolve("/actuator/metrics"));

            assertThat(write(v2, "mailer", "m", MAILER_ROUNDS)).isEqualTo((long) AGGREGATES * MAILER_ROUNDS);
            assertThat(write(v2, "ledger", "l", LEDGER_ROUNDS)).isEqualTo((long) AGGREGATES * LEDGER_ROUNDS);

            // Records v2 wrote into v1's partitions for its new handler, and their aggregates.
            List<Integer> v1Partitions = List.copyOf(table.partitionsOf("v1"));
            String inV1 = "handler_id = 'mailer' AND partition_no IN (" + String.join(",",
                    v1Partitions.stream().map(String::valueOf).toList()) + ")";
            long waiting = cluster.count("SELECT COUNT(*) FROM outbox_record WHERE " + inV1);
            long waitingAggregates = cluster.count("SELECT COUNT(DISTINCT aggregate_id) FROM outbox_record WHERE "
                    + inV1);
            assertThat(waiting).as("some of the mailer's records are in v1's partitions").isPositive()
                    .isLessThan((long) AGGREGATES * MAILER_ROUNDS);

            // Everything else is handled; v1 has looked at the head of every waiting aggregate and deferred it.
            cluster.awaitWhileNodesLive("all but the mailer's records in v1's partitions completed, and the heads "
                    + "of those deferred", () -> {
                        assertNoneFailed(cluster);
                        return cluster.count("SELECT COUNT(*) FROM outbox_record WHERE status = 'COMPLETED'")
                                == (long) AGGREGATES * (MAILER_ROUNDS + LEDGER_ROUNDS) - waiting
                                && cluster.count("SELECT COUNT(*) FROM outbox_record WHERE " + inV1
                                        + " AND last_error LIKE '%HandlerNotDeployedException%'") == waitingAggregates;
                    });
            assertThat(cluster.count("SELECT COUNT(*) FROM outbox_record WHERE " + inV1 + " AND (status <> 'NEW'"
                    + " OR retry_count <> 0)")).as("waiting records are NEW and used no attempt").isZero();
            assertThat(cluster.count("SELECT COUNT(*) FROM outbox_record WHERE " + inV1 + " AND last_error IS NULL"))
                    .as("records behind a deferred head were not looked at").isEqualTo(waiting - waitingAggregates);
            assertThat(cluster.count("SELECT COUNT(*) FROM outbox_record WHERE " + inV1
                    + " AND last_error LIKE '%addressed to handler ''mailer'', which this instance does not have "
                    + "(its handlers: [ledger])%'")).isEqualTo(waitingAggregates);
            assertThat(cluster.count("SELECT COUNT(*) FROM handled_record h JOIN outbox_record r ON r.id = h.record_id"
                    + " WHERE r.handler_id = 'mailer' AND h.instance_id = 'v1'")).as("v1 never called a mailer")
                    .isZero();
            assertThat(cluster.logLinesContaining("v1", DEFERRAL_WARNING)).as("v1 warned once, not per record")
                    .isEqualTo(1);

            // The gauge and the endpoint: the records wait for an instance that is live (v2), so nothing is stuck.
            awaitGauge(cluster, v2, "outbox.records.deferred", waiting);
            assertThat(gauge(v2, "outbox.records.deferred.unhandled")).isZero();
            JsonNode report = get(v2.resolve("/actuator/outbox"));
            JsonNode deferred = report.get("deferred");
            assertThat(deferred.get("records").asLong()).isEqualTo(waiting);
            assertThat(deferred.get("unhandled").asLong()).isZero();
            assertThat(deferred.get("byHandler")).singleElement().satisfies(group -> {
                assertThat(group.get("handlerId").asString()).isEqualTo("mailer");
                assertThat(group.get("records").asLong()).isEqualTo(waiting);
                assertThat(group.get("takenBy").toString()).isEqualTo("[\"v2\"]");
            });
            Map<String, String> versions = Map.of(
                    report.get("instances").get(0).get("id").asString(),
                    report.get("instances").get(0).get("version").asString() + " "
                            + report.get("instances").get(0).get("handlerIds"),
                    report.get("instances").get(1).get("id").asString(),
                    report.get("instances").get(1).get("version").asString() + " "
                            + report.get("instances").get(1).get("handlerIds"));
            assertThat(versions).isEqualTo(Map.of("v1", "1.0.0 [\"ledger\"]", "v2", "2.0.0 [\"ledger\",\"mailer\"]"));

            // v1 stops; v2 takes its partitions and handles what waited, in order.
            cluster.sigterm("v1");
            assertThat(cluster.awaitExit("v1")).isEqualTo(143);
            cluster.awaitBalanced("v2");
            cluster.awaitWhileNodesLive("every record completed", () -> {
                assertNoneFailed(cluster);
                return cluster.count("SELECT COUNT(*) FROM outbox_record WHERE status = 'COMPLETED'")
                        == (long) AGGREGATES * (MAILER_ROUNDS + LEDGER_ROUNDS);
            });
            assertThat(cluster.count("SELECT COUNT(*) FROM outbox_record WHERE retry_count <> 0"))
                    .as("no attempt was used up by waiting").isZero();
            assertThat(cluster.duplicates()).as("records handled more than once").isEmpty();
            assertThat(cluster.handlerCalls()).isEqualTo((long) AGGREGATES * (MAILER_ROUNDS + LEDGER_ROUNDS));
            assertThat(cluster.orderViolations()).as("per-aggregate order").isEmpty();
            assertThat(cluster.count("SELECT COUNT(*) FROM handled_record h JOIN outbox_record r ON r.id = h.record_id"
                    + " WHERE " + inV1.replace("handler_id", "r.handler_id").replace("partition_no", "r.partition_no")
                    + " AND h.instance_id = 'v2'")).as("v2 handled what waited in v1's partitions").isEqualTo(waiting);
            awaitGauge(cluster, v2, "outbox.records.deferred", 0);
        }
    }

    private static void assertNoneFailed(ClusterHarness cluster) {
        Map<String, Long> counts = cluster.statusCounts();
        if (counts.containsKey("FAILED")) {
            throw new AssertionError("records FAILED: " + counts);
        }
    }

    private long write(URI node, String eventType, String prefix, int rounds) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(node.resolve("/cluster/write?eventType="
                + eventType + "&prefix=" + prefix + "&aggregates=" + AGGREGATES + "&rounds=" + rounds))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Long.parseLong(response.body().strip());
    }

    private void awaitGauge(ClusterHarness cluster, URI node, String name, long expected) {
        cluster.awaitWhileNodesLive(name + " = " + expected, () -> gauge(node, name) == expected);
    }

    private double gauge(URI node, String name) throws Exception {
        return get(node.resolve("/actuator/metrics/" + name)).get("measurements").get(0).get("value").asDouble();
    }

    private JsonNode get(URI uri) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(uri + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    /** Waits for the node's web server: it is up shortly after the node registered. */
    private void awaitHttp(ClusterHarness cluster, URI uri) {
        cluster.awaitWhileNodesLive(uri + " answers", () -> {
            try {
                return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException e) {
                return false;
            }
        });
    }
}
