package dev.outbox.example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;
import static org.springframework.boot.test.context.SpringBootTest.WebEnvironment.RANDOM_PORT;

import dev.outbox.Outbox;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.publish.OutboxPublisher;
import dev.outbox.publish.PublishException;
import dev.outbox.publish.PublisherRegistration;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.ActiveProfiles;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Keeps the Grafana dashboard honest: with the application running (records completing, some failing), a real
 * Prometheus server scrapes its {@code /actuator/prometheus}, and every PromQL expression of every panel must return at
 * least one series through Prometheus' HTTP API.
 *
 * <p>Needs the {@code prometheus} binary (Debian package {@code prometheus}; {@code scripts/test} installs it). Without
 * it the test is skipped, unless {@code OUTBOX_TEST_REQUIRE_PROMETHEUS=true} or {@code CI=true}, where it fails.
 */
@SpringBootTest(webEnvironment = RANDOM_PORT, properties = {
        "outbox.retry.max-retries=1", "outbox.retry.policy=fixed", "outbox.retry.fixed.delay=200ms",
        "outbox.metrics.refresh-interval=1s"})
@ActiveProfiles("test")
class GrafanaDashboardTest {

    private static final Path DASHBOARD = Path.of("..", "grafana", "outbox-dashboard.json");
    private static final Duration PATIENCE = Duration.ofSeconds(120);

    @LocalServerPort
    private int port;
    @Autowired
    private JsonMapper jsonMapper;
    @Autowired
    private Outbox outbox;
    @Autowired
    private JdbcTemplate jdbc;

    private final HttpClient http = HttpClient.newHttpClient();
    private Process prometheus;

    @AfterEach
    void stopPrometheus() throws InterruptedException {
        if (prometheus != null) {
            prometheus.destroy();
            if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** An event type the application has no handler for: its records fail, are retried once, then become FAILED. */
    record UnknownEvent(String note) {
    }

    /**
     * A publisher for the publisher panels, standing in for a broker: it acknowledges on another thread a moment after
     * the send, and refuses the {@link UnknownEvent} records (retryable), so that every publisher meter has series.
     */
    @TestConfiguration
    static class BrokerStandIn {

        @Bean
        PublisherRegistration dashboardPublisher() {
            OutboxPublisher publisher = record -> record.getEventType().contains("UnknownEvent")
                    ? CompletableFuture.failedFuture(new PublishException(PublishException.Reason.REJECTED,
                            "the stand-in broker refuses " + record.getEventType()))
                    : CompletableFuture.runAsync(() -> { },
                            CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS));
            return PublisherRegistration.of("stand-in-broker", publisher);
        }
    }

    @Test
    void everyPanelQueryReturnsSeriesFromARealPrometheus(@TempDir Path work) throws Exception {
        Path binary = prometheusBinary();
        List<String> expressions = panelExpressions(jsonMapper.readTree(Files.readString(DASHBOARD)));
        assertThat(expressions).as("expressions in %s", DASHBOARD).hasSizeGreaterThanOrEqualTo(15)
                .anySatisfy(expression -> assertThat(expression).contains("outbox_records_poison_total"));

        OrdersApi api = new OrdersApi(port, jsonMapper);
        api.createOrder("alice", "10.00");
        outbox.schedule(new UnknownEvent("nobody handles this"), "order-unknown-1");
        insertPoisonRow();

        int prometheusPort = freePort();
        startPrometheus(binary, work, prometheusPort);
        String prometheusUrl = "http://127.0.0.1:" + prometheusPort;

        int[] round = {0};
        // Traffic throughout, so that rates and histograms have increases in every window; one round per scrape.
        await().atMost(PATIENCE).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            api.createOrder("customer-" + round[0], "1.00");
            outbox.schedule(new UnknownEvent("round " + round[0]), "order-unknown-" + (round[0] % 3));
            round[0]++;
            Map<String, String> problems = new LinkedHashMap<>();
            for (String expression : expressions) {
                String problem = evaluate(prometheusUrl, expression);
                if (problem != null) {
                    problems.put(expression, problem);
                }
            }
            assertThat(problems).as("panel expressions that failed or returned no series").isEmpty();
        });
    }

    /**
     * A row written by SQL into a partition that is not its aggregate's, for the poison-row panel: the processor fails
     * it at its next fetch and counts it in {@code outbox.records.poison}.
     */
    private void insertPoisonRow() {
        String aggregateId = "order-poison";
        int misplaced = (PartitionHasher.partitionOf(aggregateId) + 1) % PartitionHasher.PARTITION_COUNT;
        jdbc.update("INSERT INTO outbox_record (id, status, aggregate_id, event_type, payload, partition_no, created_at,"
                + " retry_count, next_retry_at, handler_id) VALUES (?, 'NEW', ?, 'Poison', '{}', ?, CURRENT_TIMESTAMP,"
                + " 0, CURRENT_TIMESTAMP, '')", UUID.randomUUID().toString(), aggregateId, misplaced);
    }

    /**
     * Grafana's variables as the dashboard would send them: every instance, the example's one outbox (tagged
     * {@code outbox=default}), a rate window of several scrapes.
     */
    private static String substitute(String expression) {
        return expression.replace("$__rate_interval", "15s").replace("$instance", ".*")
                .replace("$outbox", "default");
    }

    /** Null when the expression returned at least one series, else what went wrong. */
    private String evaluate(String prometheusUrl, String expression) throws IOException, InterruptedException {
        String query = URLEncoder.encode(substitute(expression), StandardCharsets.UTF_8);
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                URI.create(prometheusUrl + "/api/v1/query?query=" + query)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode body = jsonMapper.readTree(response.body());
        if (response.statusCode() != 200 || !"success".equals(body.path("status").asString())) {
            return "HTTP " + response.statusCode() + ": " + body.path("error").asString();
        }
        return body.path("data").path("result").isEmpty() ? "no series" : null;
    }

    private static List<String> panelExpressions(JsonNode dashboard) {
        List<String> expressions = new ArrayList<>();
        collect(dashboard.path("panels"), expressions);
        return expressions;
    }

    private static void collect(JsonNode panels, List<String> expressions) {
        for (JsonNode panel : panels) {
            panel.path("targets").forEach(target -> expressions.add(target.path("expr").asString()));
            collect(panel.path("panels"), expressions); // panels inside collapsed rows
        }
    }

    private void startPrometheus(Path binary, Path work, int prometheusPort) throws IOException {
        Path config = work.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: order-service
                    metrics_path: /actuator/prometheus
                    static_configs:
                      - targets: ["127.0.0.1:%d"]
                """.formatted(port));
        prometheus = new ProcessBuilder(binary.toString(), "--config.file=" + config,
                "--storage.tsdb.path=" + work.resolve("data"), "--web.listen-address=127.0.0.1:" + prometheusPort)
                .redirectErrorStream(true).redirectOutput(work.resolve("prometheus.log").toFile()).start();
        String up = "http://127.0.0.1:" + prometheusPort;
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(500)).ignoreExceptions().untilAsserted(() -> {
            assertThat(prometheus.isAlive()).as("prometheus running; log: %s", work.resolve("prometheus.log"))
                    .isTrue();
            assertThat(evaluate(up, "up{job=\"order-service\"} == 1")).isNull();
        });
    }

    private static Path prometheusBinary() {
        String configured = System.getenv("OUTBOX_TEST_PROMETHEUS");
        List<Path> candidates = new ArrayList<>();
        if (configured != null && !configured.isBlank()) {
            candidates.add(Path.of(configured));
        }
        candidates.add(Path.of("/usr/bin/prometheus"));
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isBlank()) {
                candidates.add(Path.of(dir, "prometheus"));
            }
        }
        for (Path candidate : candidates) {
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        boolean required = "true".equalsIgnoreCase(System.getenv("OUTBOX_TEST_REQUIRE_PROMETHEUS"))
                || "true".equalsIgnoreCase(System.getenv("CI"));
        if (required) {
            fail("No prometheus binary (looked at %s); install the Debian package prometheus or set "
                    + "OUTBOX_TEST_PROMETHEUS", candidates);
        }
        Assumptions.abort("No prometheus binary; install the Debian package prometheus to run this test");
        throw new IllegalStateException("unreachable");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
