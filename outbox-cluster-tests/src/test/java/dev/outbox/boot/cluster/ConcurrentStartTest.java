package dev.outbox.boot.cluster;

import static dev.outbox.boot.cluster.ClusterAssertions.name;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.jdbc.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A first deployment of three replicas: three node JVMs started at the same moment against an empty database. Each
 * creates the schema at startup, through the outbox's schema initialization or through the application's own
 * Liquibase (Spring Boot's) whose master includes the outbox changelog; all three must come up, the changelog must
 * run once, and the three must share the partitions (issue 17). Repeated runs of the same race in one JVM are
 * outbox-jdbc's ConcurrentSchemaInitializationTest.
 */
@ExtendWith(NodeLogsOnFailure.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ConcurrentStartTest {

    private static final List<String> REPLICAS = List.of("replica-1", "replica-2", "replica-3");
    /** Changesets of the outbox changelog: 16 everywhere, and PostgreSQL's five of its own indexes (004, 010, 011). */
    private static final int POSTGRES_CHANGESETS = 21;
    private static final int MARIADB_CHANGESETS = 16;
    /** The application changelog of outbox-jdbc's tests: two changesets of its own around the outbox include. */
    private static final String APPLICATION_CHANGELOG = "classpath:dev/outbox/jdbc/app-changelog-master.xml";
    private static final int APPLICATION_CHANGESETS = 2;
    /** About when three JVMs on two cores reach their first bean (2-3 s alone, longer under CI's load). */
    private static final Duration START_DELAY = Duration.ofSeconds(10);

    @ParameterizedTest
    @EnumSource(value = TestDatabase.Kind.class, names = {"POSTGRES", "MARIADB"})
    void replicasInitializingTheSchemaTogetherAllComeUp(TestDatabase.Kind kind, TestInfo test) {
        try (ClusterHarness cluster = ClusterHarness.createEmpty(name(test) + "-" + kind, kind)) {
            cluster.startNodes(REPLICAS, together());
            cluster.awaitBalanced(REPLICAS.toArray(String[]::new));

            assertRanOnce(cluster, changesets(kind));
            long reported = REPLICAS.stream()
                    .filter(id -> cluster.logLinesContaining(id, "changeset(s) of db/changelog") == 1).count();
            assertThat(reported).as("every replica checked the schema").isEqualTo(REPLICAS.size());
            assertThat(REPLICAS.stream().filter(id -> cluster.logLinesContaining(id,
                    " " + changesets(kind) + " changeset(s) of db/changelog") == 1).count())
                    .as("one replica applied the changelog, the others found it applied").isOne();
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.Kind.class, names = {"POSTGRES", "MARIADB"})
    void replicasRunningTheApplicationsOwnLiquibaseTogetherAllComeUp(TestDatabase.Kind kind, TestInfo test) {
        try (ClusterHarness cluster = ClusterHarness.createEmpty(name(test) + "-" + kind, kind)) {
            cluster.startNodes(REPLICAS, together(), "outbox.schema-initialization.enabled=false",
                    "spring.liquibase.enabled=true", "spring.liquibase.change-log=" + APPLICATION_CHANGELOG);
            cluster.awaitBalanced(REPLICAS.toArray(String[]::new));

            assertRanOnce(cluster, changesets(kind) + APPLICATION_CHANGESETS);
        }
    }

    /**
     * The nodes wait for one instant before they make their beans, so that their schema changes start within
     * milliseconds of each other, as replicas of a first deployment do; a node that gets there late starts at once.
     */
    private static String together() {
        return "cluster.start-at=" + (System.currentTimeMillis() + START_DELAY.toMillis());
    }

    private static void assertRanOnce(ClusterHarness cluster, int changesets) {
        assertThat(cluster.count("SELECT COUNT(*) FROM DATABASECHANGELOG")).isEqualTo(changesets);
        assertThat(cluster.count("SELECT COUNT(DISTINCT ID) FROM DATABASECHANGELOG")).isEqualTo(changesets);
        assertThat(cluster.count("SELECT COUNT(*) FROM outbox_partition")).isEqualTo(256);
    }

    private static int changesets(TestDatabase.Kind kind) {
        return kind == TestDatabase.Kind.POSTGRES ? POSTGRES_CHANGESETS : MARIADB_CHANGESETS;
    }
}
