package dev.outbox.boot.transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.boot.transactional.ShipmentProjection.OrderShipped;
import dev.outbox.jdbc.testing.ReadmeSnippets;
import dev.outbox.jdbc.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A transactional {@code @OutboxHandler} through the starter on H2 (with JPA, so under the JpaTransactionManager): its
 * writes in the outbox's database and its record's completion commit together, once per record; a handler whose second
 * write fails after its first leaves neither, and its record is retried. The handler is the one docs/usage.md shows.
 */
class TransactionalHandlersTest extends DatabasePerTestClass {

    private static final Duration DEADLINE = Duration.ofSeconds(120);

    private ConfigurableApplicationContext app;

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }

    @BeforeAll
    final void createProjectionTable() {
        jdbc().execute("CREATE TABLE shipment"
                + " (record_id VARCHAR(64) NOT NULL, order_id VARCHAR(64) NOT NULL, parcel INT NOT NULL)");
        // An order holds at most 100 parcels: the test's way to make the handler's second write fail.
        jdbc().execute("CREATE TABLE order_summary (order_id VARCHAR(64) PRIMARY KEY, parcels INT NOT NULL"
                + " CHECK (parcels <= 100))");
    }

    @Test
    void theDocumentedHandlerIsTheOneThatRuns() {
        ReadmeSnippets.assertInDocs(Path.of(
                "src/test/java/dev/outbox/boot/transactional/ShipmentProjection.java"), "transactional handler");
    }

    @BeforeEach
    final void startApplication() {
        app = new SpringApplicationBuilder(TransactionalHandlersApplication.class)
                .web(WebApplicationType.NONE)
                .properties(dataSourceProperties().toArray(String[]::new))
                .properties(
                        "spring.jpa.open-in-view=false",
                        "spring.main.banner-mode=off",
                        "outbox.schema-initialization.enabled=true",
                        "outbox.poll-interval=100ms",
                        "outbox.retry.policy=fixed",
                        "outbox.retry.fixed.delay=100ms",
                        "outbox.retry.max-retries=1000")
                .run();
    }

    @AfterEach
    final void stopApplication() {
        app.close();
        deleteRowsOf("outbox_record", "shipment", "order_summary");
    }

    @Test
    void eachRecordsRowCommitsOnceWithItsCompletion() {
        for (int order = 0; order < 5; order++) {
            jdbc().update("INSERT INTO order_summary (order_id, parcels) VALUES (?, 0)", "order-" + order);
        }
        transactions().executeWithoutResult(status -> {
            for (int parcel = 1; parcel <= 40; parcel++) {
                String orderId = "order-" + parcel % 5;
                app.getBean(Outbox.class).schedule(new OrderShipped(orderId, parcel), orderId);
            }
        });

        await().atMost(DEADLINE).until(() -> statuses().getOrDefault("COMPLETED", 0L) == 40);

        Map<String, Long> rowsPerRecord = rowsPerRecord();
        assertThat(rowsPerRecord).hasSize(40).allSatisfy((recordId, rows) -> assertThat(rows).isEqualTo(1));
        assertThat(rowsPerRecord.keySet()).containsExactlyInAnyOrderElementsOf(repository()
                .findByStatus(OutboxRecordStatus.COMPLETED, 100).stream().map(OutboxRecord::getId).toList());
        assertThat(jdbc().queryForList("SELECT parcels FROM order_summary", Integer.class))
                .as("each order's parcels, counted once per record").containsExactly(8, 8, 8, 8, 8);
    }

    @Test
    void aHandlerWhoseSecondWriteFailsLeavesNeitherAndItsRecordIsRetried() {
        jdbc().update("INSERT INTO order_summary (order_id, parcels) VALUES ('order-f', 100)");
        OutboxRecord record = transactions().execute(status ->
                app.getBean(Outbox.class).schedule(new OrderShipped("order-f", 1), "order-f"));

        await().atMost(DEADLINE).until(() -> stored(record).getRetryCount() >= 2);
        OutboxRecord retried = stored(record);
        assertThat(retried.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(retried.getNextRetryAt()).as("its retry, scheduled").isAfter(retried.getCreatedAt());
        assertThat(retried.getLastError()).containsIgnoringCase("order_summary");
        assertThat(rowsPerRecord()).as("the rows of the failed attempts").doesNotContainKey(record.getId());

        jdbc().update("UPDATE order_summary SET parcels = 0 WHERE order_id = 'order-f'");
        await().atMost(DEADLINE).until(() -> stored(record).getStatus() == OutboxRecordStatus.COMPLETED);
        assertThat(rowsPerRecord()).containsExactly(Map.entry(record.getId(), 1L));
        assertThat(jdbc().queryForObject("SELECT parcels FROM order_summary WHERE order_id = 'order-f'",
                Integer.class)).isEqualTo(1);
    }

    private OutboxRecord stored(OutboxRecord record) {
        return repository().findById(record.getId()).orElseThrow();
    }

    private Map<String, Long> rowsPerRecord() {
        List<Map<String, Object>> rows = jdbc().queryForList("SELECT record_id, COUNT(*) AS row_count FROM "
                + "shipment GROUP BY record_id");
        return rows.stream().collect(Collectors.toMap(row -> (String) row.get("record_id"),
                row -> ((Number) row.get("row_count")).longValue()));
    }

    private Map<String, Long> statuses() {
        return jdbc().queryForList("SELECT status FROM outbox_record", String.class).stream()
                .collect(Collectors.groupingBy(status -> status, Collectors.counting()));
    }

    private JdbcTemplate jdbc() {
        return new JdbcTemplate(database().dataSource());
    }

    private TransactionTemplate transactions() {
        return new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
    }

    private OutboxRecordRepository repository() {
        return app.getBean(OutboxRecordRepository.class);
    }
}
