package dev.outbox.example.publishing;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.CommandLineRunner;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/** Places {@code example.orders} orders, ships every other one, and waits until the consumer has them all. */
@Component
class ExampleRun implements CommandLineRunner {

    private static final Logger log = LoggerFactory.getLogger(ExampleRun.class);
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private final OrderDesk desk;
    private final ReceivedMessages received;
    private final Environment environment;
    private final int orders;

    ExampleRun(OrderDesk desk, ReceivedMessages received, Environment environment,
            @Value("${example.orders}") int orders) {
        this.desk = desk;
        this.received = received;
        this.environment = environment;
        this.orders = orders;
    }

    @Override
    public void run(String... args) throws InterruptedException {
        String broker = BrokerProfileCheck.brokerProfile(environment);
        int expected = 0;
        for (int n = 1; n <= orders; n++) {
            String orderId = "order-" + n;
            desk.place(orderId, 1_000L * n);
            expected++;
            if (n % 2 == 1) {
                desk.ship(orderId);
                expected++;
            }
        }
        log.info("Placed {} orders: {} outbox records to publish to {}", orders, expected, broker);
        if (!received.await(expected, DEADLINE)) {
            throw new IllegalStateException("only " + received.messages().size() + " of " + expected
                    + " messages arrived within " + DEADLINE);
        }
        log.info("All {} messages received from {}, each order's in order{}", expected, broker,
                received.ofEarlierRuns() == 0 ? "" : " (passed over " + received.ofEarlierRuns()
                        + " messages of earlier runs)");
    }
}
