package dev.outbox.boot.publish.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.boot.publish.PublishingApplication;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.jdbc.testing.TestDatabase;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot application on H2 with docs/publishing.md's {@code outbox.nats.*} properties, against the local
 * JetStream: records written in a business transaction reach the stream on their subjects, with their headers, once
 * each and in order, and are completed; a rolled-back transaction publishes nothing. Its subjects and stream are
 * renamed to names of this test's own, so that builds sharing the server do not meet.
 */
class NatsPublishingApplicationTest extends DatabasePerTestClass {

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
        stream = "APP_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toUpperCase(Locale.ROOT);
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
        List<String> overrides = Stream.concat(Stream.of("outbox.nats.url=" + url), dataSourceProperties().stream())
                .toList();
        try (ConfigurableApplicationContext app = PublishingApplication.run(PublishingApplication.readmeProperties(
                "outbox.nats.enabled", value -> value.replace("orders.", stream + ".").replace("ORDERS", stream),
                overrides))) {
            List<OutboxRecord> written = PublishingApplication.writeOrdersAndAwaitPublished(app);

            JetStreamManagement management = admin.jetStreamManagement();
            long count = management.getStreamInfo(stream).getStreamState().getMsgCount();
            List<MessageInfo> messages = new ArrayList<>();
            for (long sequence = 1; sequence <= count; sequence++) {
                messages.add(management.getMessage(stream, sequence));
            }
            PublishingApplication.assertDeliveredOnceInOrder(written, messages.stream()
                    .map(message -> new DeliveryCheck.Consumed(
                            message.getHeaders().getFirst(OutboxMessageHeaders.RECORD_ID),
                            message.getHeaders().getFirst(OutboxMessageHeaders.AGGREGATE_ID),
                            Long.parseLong(message.getHeaders().getFirst(OutboxMessageHeaders.SEQUENCE))))
                    .toList());
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
}
