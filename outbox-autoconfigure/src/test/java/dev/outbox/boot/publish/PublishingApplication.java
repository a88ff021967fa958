package dev.outbox.boot.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.jdbc.testing.ReadmeSnippets;
import dev.outbox.testkit.DeliveryCheck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A Spring Boot application with a broker publisher configured by docs/publishing.md's properties, and the orders it
 * writes: what each broker's application test runs before it reads the broker.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class PublishingApplication {

    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final int ORDERS = 20;

    /**
     * The documentation's {@code properties} block that sets {@code key}, each value passed through {@code rename}
     * (to give destinations names of the test's own), then {@code overrides}.
     */
    public static Map<String, Object> readmeProperties(String key, UnaryOperator<String> rename,
            List<String> overrides) {
        Map<String, Object> properties = new LinkedHashMap<>();
        ReadmeSnippets.propertiesBlockSetting(key).forEach(setting -> put(properties, setting, rename));
        overrides.forEach(setting -> put(properties, setting, UnaryOperator.identity()));
        properties.put("outbox.schema-initialization.enabled", "true");
        properties.put("outbox.poll-interval", "100ms");
        properties.put("spring.main.banner-mode", "off");
        return properties;
    }

    private static void put(Map<String, Object> properties, String setting, UnaryOperator<String> rename) {
        int equals = setting.indexOf('=');
        properties.put(setting.substring(0, equals), rename.apply(setting.substring(equals + 1)));
    }

    public static ConfigurableApplicationContext run(Map<String, Object> properties) {
        return new SpringApplicationBuilder(PublishingApplication.class).web(WebApplicationType.NONE)
                .properties(properties).run();
    }

    /**
     * Writes, in one transaction, five {@code OrderPlaced} records for each of 20 orders, an {@code OrderCancelled}
     * of order-1 and an {@code OrderShipped} of order-2 (the event type without a route), and in a transaction that
     * rolls back an {@code OrderPlaced} of order-99; waits until the 102 committed records are completed.
     *
     * @return the committed records as stored
     */
    public static List<OutboxRecord> writeOrdersAndAwaitPublished(ConfigurableApplicationContext app) {
        Outbox outbox = app.getBean(Outbox.class);
        TransactionTemplate transaction = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
        transaction.executeWithoutResult(status -> {
            for (int n = 1; n <= 5; n++) {
                for (int order = 1; order <= ORDERS; order++) {
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
        List<String> orders = IntStream.rangeClosed(1, ORDERS).mapToObj(order -> "order-" + order).toList();
        await().dontCatchUncaughtExceptions().atMost(DEADLINE).until(() -> orders.stream()
                .flatMap(id -> records.findByAggregateId(id).stream())
                .allMatch(record -> record.getStatus() == OutboxRecordStatus.COMPLETED));
        List<OutboxRecord> written = new ArrayList<>();
        orders.forEach(id -> written.addAll(records.findByAggregateId(id)));
        assertThat(written).hasSize(102);
        assertThat(records.findByAggregateId("order-99")).as("rolled back").isEmpty();
        return written;
    }

    /** Each committed record once, every order's records in sequence, nothing else. */
    public static void assertDeliveredOnceInOrder(List<OutboxRecord> written, List<DeliveryCheck.Consumed> consumed) {
        DeliveryCheck check = DeliveryCheck.of(written, consumed);
        assertThat(check.missing()).as("%s", check).isEmpty();
        assertThat(check.unknown()).as("%s", check).isEmpty();
        assertThat(check.copies()).as("%s", check).isZero();
        assertThat(check.orderViolations()).as("%s", check).isEmpty();
    }
}
