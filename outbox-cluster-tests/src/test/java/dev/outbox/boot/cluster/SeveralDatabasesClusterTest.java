package dev.outbox.boot.cluster;

import static dev.outbox.boot.cluster.ClusterAssertions.name;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.jdbc.testing.TestDatabase;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Two node JVMs, each with three outboxes: the default one in the cluster's PostgreSQL database, {@code orders} in a
 * second PostgreSQL database and {@code ledger} in a MariaDB database (issue 16). Each outbox's 256 partitions are
 * balanced between the two on their own; when one is killed with -9, the other takes every partition of every outbox.
 */
@ExtendWith(NodeLogsOnFailure.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SeveralDatabasesClusterTest {

    @Test
    void eachOutboxIsBalancedOnItsOwnAndAKilledNodesPartitionsOfEveryOutboxAreTakenOver(TestInfo test) {
        List<TestDatabase> further = new ArrayList<>();
        try (ClusterHarness cluster = ClusterHarness.create(name(test))) {
            TestDatabase orders = add(further, TestDatabase.create(TestDatabase.Kind.POSTGRES));
            TestDatabase ledger = add(further, TestDatabase.create(TestDatabase.Kind.MARIADB));
            Map<String, JdbcTemplate> databases = new LinkedHashMap<>();
            databases.put("orders", new JdbcTemplate(orders.dataSource()));
            databases.put("ledger", new JdbcTemplate(ledger.dataSource()));
            String[] properties = {
                "cluster.data-sources=ordersDataSource,ledgerDataSource",
                "cluster.data-source.ordersDataSource.url=" + orders.jdbcUrl(),
                "cluster.data-source.ordersDataSource.username=" + orders.username(),
                "cluster.data-source.ordersDataSource.password=" + orders.password(),
                "cluster.data-source.ledgerDataSource.url=" + ledger.jdbcUrl(),
                "cluster.data-source.ledgerDataSource.username=" + ledger.username(),
                "cluster.data-source.ledgerDataSource.password=" + ledger.password(),
                "outbox.outboxes.orders.data-source=ordersDataSource",
                "outbox.outboxes.orders.schema-initialization.enabled=true",
                "outbox.outboxes.ledger.data-source=ledgerDataSource",
                "outbox.outboxes.ledger.schema-initialization.enabled=true"};

            cluster.startNodes(List.of("node-1", "node-2"), properties);
            cluster.awaitBalanced("node-1", "node-2");
            databases.forEach((outbox, database) -> cluster.awaitWhileNodesLive(outbox + " balanced between both",
                    () -> PartitionTable.read(database).isBalancedAmong(List.of("node-1", "node-2"))));

            cluster.kill9("node-1");

            cluster.awaitBalanced("node-2");
            databases.forEach((outbox, database) -> cluster.awaitWhileNodesLive(outbox + " taken over by node-2",
                    () -> PartitionTable.read(database).isBalancedAmong(List.of("node-2"))));
            databases.forEach((outbox, database) -> assertThat(database.queryForList(
                    "SELECT instance_id FROM outbox_instance", String.class)).as(outbox).containsExactly("node-2"));
        } finally {
            further.forEach(TestDatabase::close);
        }
    }

    private static TestDatabase add(List<TestDatabase> databases, TestDatabase database) {
        databases.add(database);
        return database;
    }
}
