package dev.outbox.boot.cluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Asks each node's {@code /actuator/health/outbox} every {@link #INTERVAL} on a thread of its own and keeps every
 * answer with when it was asked and answered, so that a test can say afterwards what health said while a fault
 * lasted. A node that does not answer shows as {@code NO_ANSWER}.
 */
final class HealthWatch implements AutoCloseable {

    static final Duration INTERVAL = Duration.ofMillis(200);
    static final String NO_ANSWER = "NO_ANSWER";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** One answer: System.nanoTime() when asked and answered, the status and the reason given for it. */
    record Reading(String node, long askedAt, long answeredAt, String status, String reason) {
    }

    private final Map<String, URI> nodes;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Reading> readings = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    private HealthWatch(Map<String, URI> nodes) {
        this.nodes = Map.copyOf(nodes);
        this.thread = new Thread(this::watch, "health-watch");
        thread.setDaemon(true);
    }

    /** Starts watching the nodes, each by the base URI of its web server. */
    static HealthWatch start(Map<String, URI> nodes) {
        HealthWatch watch = new HealthWatch(nodes);
        watch.thread.start();
        return watch;
    }

    private void watch() {
        while (running) {
            long roundStart = System.nanoTime();
            nodes.forEach((node, uri) -> readings.add(ask(node, uri.resolve("/actuator/health/outbox"))));
            long left = INTERVAL.toNanos() - (System.nanoTime() - roundStart);
            if (left > 0) {
                try {
                    Thread.sleep(Duration.ofNanos(left).toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private Reading ask(String node, URI health) {
        long askedAt = System.nanoTime();
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(health)
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            JsonNode body = JSON.readTree(response.body());
            JsonNode reason = body.path("details").path("reason");
            return new Reading(node, askedAt, System.nanoTime(), body.path("status").asString(NO_ANSWER),
                    reason.isMissingNode() ? "" : reason.asString());
        } catch (IOException | RuntimeException e) {
            return new Reading(node, askedAt, System.nanoTime(), NO_ANSWER, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reading(node, askedAt, System.nanoTime(), NO_ANSWER, "interrupted");
        }
    }

    /** The node's answers asked at or after {@code from} and answered by {@code to} (System.nanoTime()). */
    List<Reading> readings(String node, long from, long to) {
        List<Reading> within = new ArrayList<>();
        for (Reading reading : readings) {
            if (reading.node().equals(node) && reading.askedAt() >= from && reading.answeredAt() <= to) {
                within.add(reading);
            }
        }
        return within;
    }

    /** The node's first answer with {@code status} asked at or after {@code from}. */
    Optional<Reading> first(String node, String status, long from) {
        return readings(node, from, Long.MAX_VALUE).stream().filter(reading -> reading.status().equals(status))
                .findFirst();
    }

    /** Waits until every node has answered {@code status} to a question asked at or after {@code from}. */
    void awaitEvery(ClusterHarness cluster, String status, long from) {
        cluster.awaitWhileNodesLive("outbox health " + status + " on " + nodes.keySet(),
                () -> nodes.keySet().stream().allMatch(node -> first(node, status, from).isPresent()));
    }

    /** The node's latest answer. */
    Optional<Reading> latest(String node) {
        List<Reading> all = readings(node, Long.MIN_VALUE, Long.MAX_VALUE);
        return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
    }

    /** The node's answers from {@code from} on, as "status@+ms" where the status changed, for failure messages. */
    String changes(String node, long from) {
        StringBuilder changes = new StringBuilder();
        String previous = null;
        for (Reading reading : readings(node, from, Long.MAX_VALUE)) {
            if (!reading.status().equals(previous)) {
                changes.append(changes.isEmpty() ? "" : ", ").append(reading.status()).append("@+")
                        .append(Duration.ofNanos(reading.askedAt() - from).toMillis()).append("ms");
                if (!reading.reason().isEmpty()) {
                    changes.append(" (").append(reading.reason()).append(')');
                }
                previous = reading.status();
            }
        }
        return changes.toString();
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(Duration.ofSeconds(10).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
