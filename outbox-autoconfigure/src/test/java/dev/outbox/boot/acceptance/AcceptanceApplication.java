package dev.outbox.boot.acceptance;

import dev.outbox.OutboxRecordRepository;
import java.time.Clock;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A minimal application using the JPA starter the way users do: auto-configuration, a JPA entity and its Spring Data
 * repository, a service.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class AcceptanceApplication {

    @Bean
    TestOrderService testOrderService(TestOrderRepository orders, OutboxRecordRepository outbox, Clock clock) {
        return new TestOrderService((id, status, amount) -> orders.save(new TestOrder(id, status, amount)), outbox,
                clock);
    }
}
