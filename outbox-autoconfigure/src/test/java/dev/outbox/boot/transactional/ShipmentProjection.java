package dev.outbox.boot.transactional;

import dev.outbox.handler.OutboxHandler;
import dev.outbox.handler.RecordMetadata;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A projection kept in the outbox's database, as users write one: a transactional handler that inserts a row per
 * record, which commits with the record's completion or not at all.
 */
public class ShipmentProjection {

    static final String TABLE = "test_shipment_projection";

    /** The test's event, written as JSON by the application's mapper. */
    public record OrderShipped(String orderId, int parcel) {
    }

    /** Orders whose rows the handler writes and then throws for, until they are removed. */
    final Set<String> failing = ConcurrentHashMap.newKeySet();
    final AtomicInteger calls = new AtomicInteger();
    private final JdbcClient jdbc;

    ShipmentProjection(DataSource dataSource) {
        this.jdbc = JdbcClient.create(dataSource);
    }

    @OutboxHandler(id = "shipments", transactional = true)
    public void project(OrderShipped event, RecordMetadata metadata) {
        calls.incrementAndGet();
        jdbc.sql("INSERT INTO " + TABLE + " (record_id, order_id, parcel) VALUES (?, ?, ?)")
                .params(metadata.getId(), event.orderId(), event.parcel()).update();
        if (failing.contains(event.orderId())) {
            throw new IllegalStateException("the projection of " + event.orderId() + " failed after its insert");
        }
    }
}
