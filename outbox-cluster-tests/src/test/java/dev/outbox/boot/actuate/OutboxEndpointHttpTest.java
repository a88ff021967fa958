package dev.outbox.boot.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecordProcessor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 30: {@code /actuator/outbox} over HTTP as Spring MVC serves it: the report's fields in the documented order,
 * small for one instance owning the 256 partitions; the listings at {@code GET /actuator/outbox/partitions} beside
 * {@code POST /actuator/outbox/{recordId}}, which still acts on a record.
 */
class OutboxEndpointHttpTest {

    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theReportLeadsWithHealthAndThePartitionListingsAreASubPathBesideTheRecordOperations() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(FailingApplication.class)
                .properties(Map.of(
                        "server.port", "0",
                        "spring.datasource.url", "jdbc:h2:mem:http_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                        "spring.liquibase.enabled", "false",
                        "outbox.schema-initialization.enabled", "true",
                        "outbox.instance.id", "node-a",
                        "outbox.retry.max-retries", "0",
                        "outbox.metrics.refresh-interval", "100ms",
                        "management.endpoints.web.exposure.include", "outbox"))
                .run()) {
            URI base = URI.create("http://localhost:" + context.getEnvironment().getProperty("local.server.port"));
            context.getBean(Outbox.class).schedule(Map.of("n", 1), "order-1");
            await().atMost(PATIENCE).until(() -> {
                JsonNode report = JSON.readTree(get(base.resolve("/actuator/outbox")).body());
                return report.get("failedRecords").get("count").asLong() == 1
                        && report.get("instance").get("ownedPartitions").asInt() == 256;
            });

            HttpResponse<String> report = get(base.resolve("/actuator/outbox"));
            HttpResponse<String> partitions = get(base.resolve("/actuator/outbox/partitions"));
            HttpResponse<String> unknown = get(base.resolve("/actuator/outbox/partition"));

            System.out.printf("GET /actuator/outbox: %,d bytes; GET /actuator/outbox/partitions: %,d bytes%n%s%n",
                    report.body().length(), partitions.body().length(), report.body());
            assertThat(report.statusCode()).isEqualTo(200);
            assertThat(report.body().length()).as(report.body()).isLessThan(1_600);
            JsonNode tree = JSON.readTree(report.body());
            assertThat(tree.propertyNames()).containsExactly("health", "reason", "backlog", "failedRecords",
                    "deferred", "freshness", "instance", "instances", "unassignedPartitions");
            assertThat(tree.get("health").asString()).isEqualTo("UP");
            String failedId = tree.get("failedRecords").get("oldest").get(0).get("id").asString();

            assertThat(partitions.statusCode()).isEqualTo(200);
            JsonNode listings = JSON.readTree(partitions.body());
            assertThat(listings.get("epochs").size()).isEqualTo(256);
            assertThat(listings.get("byOwner").get("node-a").size()).isEqualTo(256);

            assertThat(unknown.statusCode()).isEqualTo(404);
            assertThat(JSON.readTree(unknown.body()).get("error").asString())
                    .isEqualTo("no listing is named 'partition'; there is: partitions");

            URI record = base.resolve("/actuator/outbox/" + failedId);
            HttpResponse<String> skipped = http.send(HttpRequest.newBuilder(record).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"action\": \"skip\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(skipped.statusCode()).as(skipped.body()).isEqualTo(200);
            assertThat(JSON.readTree(skipped.body()).get("records").asInt()).isEqualTo(1);
        }
    }

    private HttpResponse<String> get(URI uri) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class FailingApplication {
        @Bean
        OutboxRecordProcessor failingProcessor() {
            return record -> {
                throw new IllegalStateException("downstream refuses " + record.getId());
            };
        }
    }
}
