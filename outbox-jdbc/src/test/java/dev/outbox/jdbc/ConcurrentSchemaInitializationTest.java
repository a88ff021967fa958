package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.TestDatabase.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.sql.DataSource;
import liquibase.integration.spring.SpringLiquibase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Instances starting at the same moment on an empty database, each with sessions of its own (a pool per instance),
 * repeated because the race is a matter of timing: every one of them must come up, and the changelog must run once.
 * Without the schema lock the losers failed to create Liquibase's own tables (issue 17); separate JVMs do the same in
 * outbox-cluster-tests' ConcurrentStartTest.
 */
class ConcurrentSchemaInitializationTest {

    private static final int ROUNDS = 5;
    private static final int INSTANCES = 3;

    @ParameterizedTest
    @EnumSource(Kind.class)
    void instancesStartingTogetherOnAnEmptyDatabaseApplyTheChangelogOnce(Kind kind) throws Exception {
        for (int round = 1; round <= ROUNDS; round++) {
            try (TestDatabase database = TestDatabase.create(kind)) {
                List<Integer> applied = startTogether(database,
                        pool -> () -> OutboxSchemaInitializer.applyCounting(pool));

                assertThat(applied).as("round %d: changesets each instance ran", round)
                        .containsOnly(0, SchemaChangelogTest.changesets(kind))
                        .filteredOn(count -> count > 0).hasSize(1);
                assertChangelogRanOnce(database, SchemaChangelogTest.changesets(kind));
            }
        }
    }

    /** Spring Boot's Liquibase in every instance, with an application master that includes the outbox changelog. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void instancesRunningTheApplicationsOwnLiquibaseTogetherAllComeUp(Kind kind) throws Exception {
        for (int round = 1; round <= ROUNDS; round++) {
            try (TestDatabase database = TestDatabase.create(kind)) {
                startTogether(database, pool -> () -> {
                    SpringLiquibase liquibase = new SpringLiquibase();
                    liquibase.setDataSource(
                            OutboxSchemaInitializer.serializingSchemaChanges(pool, OutboxTables.defaults()));
                    liquibase.setChangeLog("classpath:" + SchemaChangelogTest.APP_CHANGELOG);
                    liquibase.setResourceLoader(new DefaultResourceLoader());
                    liquibase.afterPropertiesSet();
                    return 0;
                });

                assertChangelogRanOnce(database,
                        SchemaChangelogTest.changesets(kind) + SchemaChangelogTest.APP_CHANGESETS);
            }
        }
    }

    /** Runs one start per instance, all released at once; fails with the first instance that failed. */
    private static List<Integer> startTogether(TestDatabase database, Function<DataSource, Callable<Integer>> start)
            throws Exception {
        List<HikariDataSource> pools = new ArrayList<>();
        ExecutorService instances = Executors.newFixedThreadPool(INSTANCES);
        try {
            CountDownLatch ready = new CountDownLatch(INSTANCES);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Integer>> starts = new ArrayList<>();
            for (int i = 0; i < INSTANCES; i++) {
                HikariDataSource pool = pool(database);
                pools.add(pool);
                Callable<Integer> instance = start.apply(pool);
                starts.add(instances.submit(() -> {
                    ready.countDown();
                    go.await();
                    return instance.call();
                }));
            }
            assertThat(ready.await(60, TimeUnit.SECONDS)).isTrue();
            go.countDown();
            List<Integer> results = new ArrayList<>();
            for (Future<Integer> started : starts) {
                results.add(started.get(5, TimeUnit.MINUTES));
            }
            return results;
        } finally {
            instances.shutdownNow();
            pools.forEach(HikariDataSource::close);
        }
    }

    private static void assertChangelogRanOnce(TestDatabase database, int changesets) {
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM DATABASECHANGELOG", Integer.class)).isEqualTo(changesets);
        assertThat(jdbc.queryForObject("SELECT COUNT(DISTINCT ID) FROM DATABASECHANGELOG", Integer.class))
                .isEqualTo(changesets);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM outbox_partition", Integer.class)).isEqualTo(256);
    }

    /** The sessions of one instance. */
    private static HikariDataSource pool(TestDatabase database) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.jdbcUrl());
        config.setUsername(database.username());
        config.setPassword(database.password());
        config.setMaximumPoolSize(2);
        return new HikariDataSource(config);
    }
}
