package dev.outbox.boot.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecordRepository;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.jdbc.testing.ReadmeSnippets;
import dev.outbox.jdbc.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The README's smallest application on JPA, run as written on H2: the order row and its record commit together, and
 * the handler receives each order's event once, with the record id as idempotency key.
 */
class QuickStartTest extends DatabasePerTestClass {

    private static final Path SOURCES = Path.of("src/test/java/dev/outbox/boot/quickstart");

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }

    @Test
    void eachPlacedOrdersEventReachesTheHandlerOnceWithItsRecordId() {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ShopApplication.class)
                .web(WebApplicationType.NONE)
                .properties(dataSourceProperties().toArray(String[]::new))
                .properties("spring.main.banner-mode=off", "outbox.schema-initialization.enabled=true",
                        "outbox.poll-interval=100ms", "spring.jpa.hibernate.ddl-auto=create-drop",
                        "spring.jpa.open-in-view=false")
                .run()) {
            OrderService orders = app.getBean(OrderService.class);
            RecordingMailer mailer = app.getBean(RecordingMailer.class);

            orders.place("order-1", "alice@example.com", 2550);
            orders.place("order-2", "bob@example.com", 990);

            OutboxRecordRepository records = app.getBean(OutboxRecordRepository.class);
            String first = records.findByAggregateId("order-1").get(0).getId();
            String second = records.findByAggregateId("order-2").get(0).getId();
            await().atMost(Duration.ofSeconds(60)).until(() -> mailer.sent.size() >= 2);
            assertThat(app.getBean(PurchaseOrders.class).count()).isEqualTo(2);
            assertThat(mailer.sent).as("each order's event once, with its record id").containsExactlyInAnyOrder(
                    "alice@example.com: Order order-1 placed (" + first + ")",
                    "bob@example.com: Order order-2 placed (" + second + ")");
        }
    }

    @Test
    void theReadmeShowsTheseLinesWithTheirImports() {
        ReadmeSnippets.assertInDocs(SOURCES.resolve("OrderService.java"), "jpa-write");
        ReadmeSnippets.assertInDocs(SOURCES.resolve("OrderConfirmations.java"), "jpa-handler");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({OrderService.class, OrderConfirmations.class})
    static class ShopApplication {

        @Bean
        RecordingMailer mailer() {
            return new RecordingMailer();
        }
    }

    static class RecordingMailer implements Mailer {

        final List<String> sent = new CopyOnWriteArrayList<>();

        @Override
        public void send(String to, String subject, String idempotencyKey) {
            sent.add(to + ": " + subject + " (" + idempotencyKey + ")");
        }
    }
}
