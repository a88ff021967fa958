package dev.outbox.benchmark;

import dev.outbox.handler.HandlerRegistration;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The two typed handlers the transactional benchmark compares, under the same handler id and event type so that the
 * records, their dispatch and their completion are the same: one does nothing, the other is a transactional
 * projection whose two writes commit with its record's completion.
 */
final class ProjectionHandlers {

    static final String HANDLER_ID = "projection";
    static final String ROWS_TABLE = "bench_projection";
    static final String COUNTERS_TABLE = "bench_projection_counter";

    private ProjectionHandlers() {
    }

    /** The projection's tables; the identity column keeps the order in which the rows were inserted. */
    static String[] createTables() {
        return new String[] {
            "CREATE TABLE " + ROWS_TABLE + " (position BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
                    + " record_id VARCHAR(64) NOT NULL, aggregate_id VARCHAR(255) NOT NULL, sequence_no BIGINT)",
            "CREATE TABLE " + COUNTERS_TABLE + " (aggregate_id VARCHAR(255) PRIMARY KEY, handled BIGINT NOT NULL)"
        };
    }

    /**
     * The projection's two writes of one record: its row, and its aggregate's counter. The transactional handler
     * makes them, and so does {@link ProjectionWritesAlone} without the outbox.
     */
    static void project(JdbcClient jdbc, String recordId, String aggregateId, @Nullable Long sequence) {
        jdbc.sql("INSERT INTO " + ROWS_TABLE + " (record_id, aggregate_id, sequence_no) VALUES (?, ?, ?)")
                .params(recordId, aggregateId, sequence)
                .update();
        jdbc.sql("INSERT INTO " + COUNTERS_TABLE + " (aggregate_id, handled) VALUES (?, 1)"
                        + " ON CONFLICT (aggregate_id) DO UPDATE SET handled = " + COUNTERS_TABLE + ".handled + 1")
                .param(aggregateId)
                .update();
    }

    /** A non-transactional handler that does nothing: the reference. */
    @Configuration(proxyBeanMethods = false)
    static class Noop {

        @Bean
        HandlerRegistration<ProjectedOrder> noopProjection() {
            return HandlerRegistration.builder(HANDLER_ID, ProjectedOrder.class)
                    .handler((event, metadata) -> { })
                    .build();
        }
    }

    /**
     * A transactional handler: per record, a projection row and the aggregate's counter, through a JdbcClient on the
     * application's DataSource, so both join the transaction that completes the record.
     */
    @Configuration(proxyBeanMethods = false)
    static class Transactional {

        @Bean
        HandlerRegistration<ProjectedOrder> transactionalProjection(DataSource dataSource) {
            JdbcClient jdbc = JdbcClient.create(dataSource);
            return HandlerRegistration.builder(HANDLER_ID, ProjectedOrder.class)
                    .transactional(true)
                    .handler((event, metadata) -> project(jdbc, metadata.getId(), metadata.getAggregateId(),
                            metadata.getSequence()))
                    .build();
        }
    }
}
