package dev.outbox.boot.transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.boot.transactional.ShipmentProjection.OrderShipped;
import dev.outbox.jdbc.testing.TestDatabase;
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
 * row in the outbox's database and its record's completion commit together, once per record; a handler that writes
 * and then throws leaves no row, and its record is retried.
 */
class TransactionalHandlersTest extends DatabasePerTestClass {

    private static final Duration DEADLINE = Duration.ofSeconds(120);

    private ConfigurableApplicationContext app;
    private ShipmentProjection projection;

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }

    @BeforeAll
    final void createProjectionTable() {
        jdbc().execute("CREATE TABLE " + ShipmentProjection.TABLE
                + " (record_id VARCHAR(64) NOT NULL, order_id VARCHAR(64) NOT NULL, parcel INT NOT NULL)");
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
        projection = app.getBean(ShipmentProjection.class);
    }

    @AfterEach
    final void stopApplication() {
        app.close();
        deleteRowsOf("outbox_record", ShipmentProjection.TABLE);
    }

    @Test
    void eachRecordsRowCommitsOnceWithItsCompletion() {
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
    }

    @Test
    void aHandlerThatWritesThenThrowsLeavesNoRowAndItsRecordIsRetried() {
        projection.failing.add("order-f");
        OutboxRecord record = transactions().execute(status ->
                app.getBean(Outbox.class).schedule(new OrderShipped("order-f", 1), "order-f"));

        await().atMost(DEADLINE).until(() -> stored(record).getRetryCount() >= 2);
        OutboxRecord retried = stored(record);
        assertThat(retried.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(retried.getNextRetryAt()).as("its retry, scheduled").isAfter(retried.getCreatedAt());
        assertThat(retried.getLastError()).contains("the projection of order-f failed after its insert");
        assertThat(rowsPerRecord()).as("the rows of the failed attempts").doesNotContainKey(record.getId());

        projection.failing.clear();
        await().atMost(DEADLINE).until(() -> stored(record).getStatus() == OutboxRecordStatus.COMPLETED);
        assertThat(rowsPerRecord()).containsExactly(Map.entry(record.getId(), 1L));
        assertThat(projection.calls.get()).as("every attempt inserted its row").isGreaterThanOrEqualTo(3);
    }

    private OutboxRecord stored(OutboxRecord record) {
        return repository().findById(record.getId()).orElseThrow();
    }

    private Map<String, Long> rowsPerRecord() {
        List<Map<String, Object>> rows = jdbc().queryForList("SELECT record_id, COUNT(*) AS row_count FROM "
                + ShipmentProjection.TABLE + " GROUP BY record_id");
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
