package dev.outbox.boot.handlers;

import dev.outbox.retry.OutboxRetryPolicy;
import java.time.Duration;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** An application whose only handlers are typed ones: no OutboxRecordProcessor bean. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class HandlersApplication {

    @Bean
    ShippingHandlers shippingHandlers() {
        return new ShippingHandlers();
    }

    @Bean
    ReturnsDesk returnsDesk() {
        return new ReturnsDesk();
    }

    /** The ledger's own policy: quick retries, many of them; the default stays {@code outbox.retry.*}. */
    @Bean
    OutboxRetryPolicy ledgerRetryPolicy() {
        return OutboxRetryPolicy.fixed(Duration.ofMillis(200)).withMaxRetries(1000);
    }
}
