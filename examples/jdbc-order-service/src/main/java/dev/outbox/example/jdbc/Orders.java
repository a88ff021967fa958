package dev.outbox.example.jdbc;

import dev.outbox.Outbox;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the row and its event commit together, or neither does. */
// README: jdbc-write
@Service
public class Orders {

    private final JdbcClient jdbc;
    private final Outbox outbox;

    public Orders(JdbcClient jdbc, Outbox outbox) {
        this.jdbc = jdbc;
        this.outbox = outbox;
    }

    @Transactional
    public void place(String orderId, String customer, long amountCents) {
        jdbc.sql("INSERT INTO orders (id, customer, amount_cents) VALUES (?, ?, ?)")
                .params(orderId, customer, amountCents)
                .update();
        outbox.schedule(new OrderPlaced(orderId, customer, amountCents), orderId);
    }
}
// README: end
