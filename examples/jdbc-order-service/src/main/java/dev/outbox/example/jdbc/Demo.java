package dev.outbox.example.jdbc;

import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What {@code spring-boot:run} shows: two orders placed and confirmed by their handler, and a third whose transaction
 * rolls back, leaving neither its row nor its event; then the application ends. Off with {@code demo.enabled=false}.
 */
@Component
@ConditionalOnBooleanProperty(name = "demo.enabled", matchIfMissing = true)
class Demo implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(Demo.class);
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final Orders orders;
    private final Confirmations confirmations;
    private final TransactionTemplate transactions;

    Demo(Orders orders, Confirmations confirmations, TransactionTemplate transactions) {
        this.orders = orders;
        this.confirmations = confirmations;
        this.transactions = transactions;
    }

    @Override
    public void run(ApplicationArguments args) throws InterruptedException {
        orders.place("demo-1", "Ada", 4_200);
        orders.place("demo-2", "Grace", 1_000);
        try {
            transactions.executeWithoutResult(status -> {
                orders.place("demo-3", "Edsger", 560);
                throw new IllegalStateException("payment declined");
            });
        } catch (IllegalStateException declined) {
            log.info("Order demo-3 rolled back ({}): neither its row nor its event was written", declined.getMessage());
        }
        List<String> confirmed = confirmations.awaitConfirmed(2, PATIENCE);
        log.info("Orders confirmed by their outbox handler: {}", confirmed);
    }
}
