package dev.outbox.boot.publish.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.jpa.testing.ReadmeSnippets;
import dev.outbox.jpa.testing.TestDatabase;
import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.testkit.DeliveryCheck;
import dev.outbox.testkit.TestBrokers;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A Spring Boot application on H2 with the README's {@code outbox.nats.*} properties, against the local JetStream:
 * records written in a business transaction reach the stream on their subjects, with their headers, once each and in
 * order, and are completed; a rolled-back transaction publishes nothing. The README's subjects and stream are renamed
 * to names of this test's own, so that builds sharing the server do not meet.
 */
class NatsPublishingApplicationTest extends DatabasePerTestClass {

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private String url;
    private String stream;
    private Connection admin;

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }

    @BeforeAll
    void createStream() throws Exception {
        url = TestBrokers.require("NATS", "nats://127.0.0.1:4222");
        admin = Nats.connect(url);
        stream = "APP_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toUpperCase();
        admin.jetStreamManagement().addStream(StreamConfiguration.builder().name(stream).subjects(stream + ".>")
                .storageType(StorageType.Memory).build());
    }

    @AfterAll
    void deleteStream() throws Exception {
        if (admin != null) {
            try {
                admin.jetStreamManagement().deleteStream(stream);
            } finally {
                admin.close();
            }
        }
    }

    @Test
    void theReadmesPropertiesPublishEveryCommittedRecordToItsSubject() throws Exception {
        Map<String, Object> properties = new LinkedHashMap<>();
        for (String setting : ReadmeSnippets.propertiesBlockSetting("outbox.nats.enabled")) {
            String[] keyAndValue = setting.split("=", 2);
            properties.put(keyAndValue[0], keyAndValue[1].replace("orders.", stream + ".")
                    .replace("ORDERS", stream));
        }
        properties.put("outbox.nats.url", url);
        dataSourceProperties().forEach(setting -> properties.put(setting.substring(0, setting.indexOf('=')),
                setting.substring(setting.indexOf('=') + 1)));
        properties.put("outbox.schema-initialization.enabled", "true");
        properties.put("outbox.poll-interval", "100ms");
        properties.put("spring.main.banner-mode", "off");

        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(OrderApplication.class)
                .web(WebApplicationType.NONE).properties(properties).run()) {
            Outbox outbox = app.getBean(Outbox.class);
            TransactionTemplate transaction = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
            transaction.executeWithoutResult(status -> {
                for (int n = 1; n <= 5; n++) {
                    for (int order = 1; order <= 20; order++) {
                        outbox.schedule(Map.of("order", order, "n", n), "order-" + order, "OrderPlaced");
                    }
                }
                outbox.schedule(Map.of("order", 1), "order-1", "OrderCancelled");
                outbox.schedule(Map.of("order", 2), "order-2", "OrderShipped");
            });
            transaction.executeWithoutResult(status -> {
                outbox.schedule(Map.of("order", 99), "order-99", "OrderPlaced");
                status.setRollbackOnly();
            });

            OutboxRecordRepository records = app.getBean(OutboxRecordRepository.class);
            List<String> aggregates = Stream.iterate(1, order -> order <= 20, order -> order + 1)
                    .map(order -> "order-" + order).toList();
            await().atMost(DEADLINE).until(() -> aggregates.stream().flatMap(id -> records.findByAggregateId(id)
                    .stream()).allMatch(record -> record.getStatus() == OutboxRecordStatus.COMPLETED));
            List<OutboxRecord> written = new ArrayList<>();
            aggregates.forEach(id -> written.addAll(records.findByAggregateId(id)));
            assertThat(written).hasSize(102);
            assertThat(records.findByAggregateId("order-99")).isEmpty();

            JetStreamManagement management = admin.jetStreamManagement();
            long count = management.getStreamInfo(stream).getStreamState().getMsgCount();
            List<MessageInfo> messages = new ArrayList<>();
            for (long sequence = 1; sequence <= count; sequence++) {
                messages.add(management.getMessage(stream, sequence));
            }
            DeliveryCheck check = DeliveryCheck.of(written, messages.stream().map(message -> new DeliveryCheck.Consumed(
                    message.getHeaders().getFirst(OutboxMessageHeaders.RECORD_ID),
                    message.getHeaders().getFirst(OutboxMessageHeaders.AGGREGATE_ID),
                    Long.parseLong(message.getHeaders().getFirst(OutboxMessageHeaders.SEQUENCE)))).toList());
            assertThat(check.missing()).as("%s", check).isEmpty();
            assertThat(check.unknown()).isEmpty();
            assertThat(check.copies()).isZero();
            assertThat(check.orderViolations()).isEmpty();

            assertThat(messages).filteredOn(message -> message.getSubject().equals(stream + ".placed")).hasSize(100);
            assertThat(messages).filteredOn(message -> message.getSubject().equals(stream + ".cancelled"))
                    .hasSize(1);
            assertThat(messages).filteredOn(message -> message.getSubject().equals(stream + ".other"))
                    .singleElement().satisfies(message -> {
                        assertThat(message.getHeaders().getFirst(OutboxMessageHeaders.EVENT_TYPE))
                                .isEqualTo("OrderShipped");
                        assertThat(message.getHeaders().getFirst("ce_source")).isEqualTo("/order-service");
                        assertThat(message.getHeaders().getFirst("ce_subject")).isEqualTo("order-2");
                        assertThat(new String(message.getData(), StandardCharsets.UTF_8))
                                .isEqualTo("{\"order\":2}");
                    });
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class OrderApplication {
    }
}
