package dev.outbox.example.publishing;

import dev.outbox.Outbox;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The business side: each change and its event in one transaction, so both are stored or neither is. */
@Service
public class OrderDesk {

    private final JdbcClient jdbc;
    private final Outbox outbox;

    OrderDesk(JdbcClient jdbc, Outbox outbox) {
        this.jdbc = jdbc;
        this.outbox = outbox;
    }

    @Transactional
    public void place(String orderId, long amountCents) {
        jdbc.sql("INSERT INTO customer_order (id, amount_cents, shipped) VALUES (?, ?, FALSE)")
                .params(orderId, amountCents).update();
        outbox.schedule(new OrderPlaced(orderId, amountCents), orderId);
    }

    @Transactional
    public void ship(String orderId) {
        jdbc.sql("UPDATE customer_order SET shipped = TRUE WHERE id = ?").param(orderId).update();
        outbox.schedule(new OrderShipped(orderId), orderId);
    }
}
