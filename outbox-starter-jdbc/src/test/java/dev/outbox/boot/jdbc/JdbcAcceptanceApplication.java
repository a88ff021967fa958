package dev.outbox.boot.jdbc;

import dev.outbox.OutboxRecordRepository;
import dev.outbox.boot.acceptance.TestOrderService;
import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The acceptance tests' application on the JDBC starter: its business change is a {@link JdbcClient} insert, in the
 * same {@code @Transactional} methods as the outbox records.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class JdbcAcceptanceApplication {

    @Bean
    TestOrderService testOrderService(DataSource dataSource, OutboxRecordRepository outbox, Clock clock) {
        JdbcClient jdbc = JdbcClient.create(dataSource);
        return new TestOrderService((id, status, amount) -> jdbc
                .sql("INSERT INTO test_order (id, status, amount) VALUES (?, ?, ?)")
                .params(id, status, amount).update(), outbox, clock);
    }
}
