package dev.outbox.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecordProcessor;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.RecordStore;
import dev.outbox.testing.ForwardingRecordStore;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The outbox is warm before the application reports ready (readiness ACCEPTING_TRAFFIC, what a load balancer waits
 * for): when readiness changes, this instance has heartbeated, holds its partitions, has run its first fetches (the
 * statement prepared) and its LISTEN for other instances' commits is in place. Checked in order, no timing.
 */
class WarmBeforeReadyTest extends DatabasePerTestClass {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }

    /** What the outbox had done when readiness changed to ACCEPTING_TRAFFIC. */
    record AtReady(boolean heartbeated, int ownedPartitions, int fetches, long listeningConnections) {
    }

    @Test
    void theFirstHeartbeatClaimFetchesAndListenComeBeforeReadiness() {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(WarmApplication.class)
                .web(WebApplicationType.NONE)
                .properties(dataSourceProperties().toArray(String[]::new))
                .properties("spring.main.banner-mode=off", "outbox.schema-initialization.enabled=true",
                        "outbox.instance.id=warm-1")
                .run()) {
            AtReady atReady = app.getBean(WarmApplication.class).atReady.get();

            assertThat(atReady).as("readiness changed to ACCEPTING_TRAFFIC").isNotNull();
            assertThat(atReady.heartbeated()).as("first heartbeat").isTrue();
            assertThat(atReady.ownedPartitions()).as("partitions claimed (the only instance)").isEqualTo(256);
            assertThat(atReady.fetches()).as("first fetches, the statement prepared from the fifth on")
                    .isGreaterThanOrEqualTo(5);
            assertThat(atReady.listeningConnections()).as("LISTEN in place").isEqualTo(1);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class WarmApplication {

        final AtomicInteger fetches = new AtomicInteger();
        final AtomicReference<AtReady> atReady = new AtomicReference<>();

        @Bean
        OutboxRecordProcessor warmHandler() {
            return record -> { };
        }

        /** Counts the fetches that returned. */
        @Bean
        static BeanPostProcessor countingRecordStore(ObjectProvider<WarmApplication> application) {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String beanName) {
                    if (bean instanceof RecordStore store && beanName.equals("outboxRecordStore")) {
                        return new ForwardingRecordStore(store) {
                            @Override
                            public FetchedRows findDue(DueRecordsQuery query) {
                                FetchedRows rows = super.findDue(query);
                                application.getObject().fetches.incrementAndGet();
                                return rows;
                            }
                        };
                    }
                    return bean;
                }
            };
        }

        @Bean
        ApplicationListener<AvailabilityChangeEvent<ReadinessState>> atReadiness(ClusterCoordinator coordinator,
                DataSource dataSource) {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            return event -> {
                if (event.getState() == ReadinessState.ACCEPTING_TRAFFIC) {
                    // pg_stat_activity shows each backend's current or last statement as it starts it
                    Long listening = jdbc.queryForObject("SELECT COUNT(*) FROM pg_stat_activity"
                            + " WHERE datname = current_database() AND query LIKE 'LISTEN %'", Long.class);
                    atReady.set(new AtReady(coordinator.sinceLastHeartbeat().isPresent(),
                            coordinator.ownedPartitions().size(), fetches.get(), listening == null ? 0 : listening));
                }
            };
        }
    }
}
