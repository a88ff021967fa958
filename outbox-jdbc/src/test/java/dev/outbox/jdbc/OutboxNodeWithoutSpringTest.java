package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.jdbc.testing.JdbcOutboxFixture;
import dev.outbox.jdbc.testing.ReadmeSnippets;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.node.OutboxNode;
import dev.outbox.processing.OutboxProcessor;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A complete processing node from outbox-core and outbox-jdbc alone, no Spring context: the snippet of
 * docs/architecture.md, run as written on each database. The records are written with the JDBC repository.
 */
class OutboxNodeWithoutSpringTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private final Map<String, List<Integer>> published = new ConcurrentHashMap<>();

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aNodeOfJdbcStoresJoinsProcessesInOrderAndHandsOverOnClose(TestDatabase.Kind kind) throws Exception {
        try (JdbcOutboxFixture fixture = JdbcOutboxFixture.create(kind, OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES)) {
            DataSource dataSource = fixture.database().dataSource();
            // README: node without Spring
            JdbcOutboxStores stores = JdbcOutboxStores.create(dataSource);
            OutboxNode node = OutboxNode.builder()
                    .processor(OutboxProcessor.builder()
                            .recordStore(stores.records())
                            .handler(record -> publish(record)))
                    .cluster(stores.cluster("orders-1"))
                    .wakeUpSource(stores.notifications())
                    .build();
            node.start();
            // README: end
            try {
                assertThat(node.coordinator().orElseThrow().ownedPartitions().size()).isEqualTo(256);
                List<OutboxRecord> written = new ArrayList<>();
                for (int i = 0; i < 60; i++) {
                    written.add(fixture.repository().save(OutboxRecord.builder().aggregateId("order-" + (i % 6))
                            .eventType("OrderPlaced").payload(Integer.toString(i)).build(Clock.systemUTC())));
                }

                await().atMost(DEADLINE).until(() -> written.stream().allMatch(record -> fixture.repository()
                        .findById(record.getId()).orElseThrow().getStatus() == OutboxRecordStatus.COMPLETED));
                for (int aggregate = 0; aggregate < 6; aggregate++) {
                    int first = aggregate;
                    assertThat(published.get("order-" + aggregate)).as("order-%d in sequence", aggregate)
                            .containsExactly(first, first + 6, first + 12, first + 18, first + 24, first + 30,
                                    first + 36, first + 42, first + 48, first + 54);
                }
            } finally {
                // README: node without Spring, stopped
                node.close();
                stores.close();
                // README: end
            }
            assertThat(fixture.jdbc().queryForObject("SELECT COUNT(*) FROM outbox_partition WHERE "
                    + "owner_instance_id IS NOT NULL", Integer.class)).as("every partition released").isZero();
            assertThat(fixture.jdbc().queryForObject("SELECT COUNT(*) FROM outbox_instance", Integer.class))
                    .as("the instance left the table").isZero();
        }
    }

    @Test
    void theReadmeShowsTheseLines() {
        Path source = Path.of("src/test/java/dev/outbox/jdbc/OutboxNodeWithoutSpringTest.java");
        ReadmeSnippets.assertInDocs(source, "node without Spring");
        ReadmeSnippets.assertInDocs(source, "node without Spring, stopped");
    }

    private void publish(OutboxRecord record) {
        published.computeIfAbsent(record.getAggregateId(), id -> new CopyOnWriteArrayList<>())
                .add(Integer.parseInt(record.getPayload()));
    }
}
