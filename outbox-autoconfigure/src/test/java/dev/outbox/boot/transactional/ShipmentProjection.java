package dev.outbox.boot.transactional;

import dev.outbox.handler.OutboxHandler;
import dev.outbox.handler.RecordMetadata;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A projection kept in the outbox's database, as users write one and as docs/usage.md shows it: a transactional
 * handler that inserts a row per shipment and counts the order's parcels, both of which commit with the record's
 * completion or not at all.
 */
public class ShipmentProjection {

    /** The test's event, written as JSON by the application's mapper. */
    public record OrderShipped(String orderId, int parcel) {
    }

    private final JdbcClient jdbc;

    ShipmentProjection(DataSource dataSource) {
        this.jdbc = JdbcClient.create(dataSource);
    }

    // README: transactional handler
    @OutboxHandler(id = "shipments", transactional = true)
    public void project(OrderShipped event, RecordMetadata metadata) {
        jdbc.sql("INSERT INTO shipment (record_id, order_id, parcel) VALUES (?, ?, ?)")
                .params(metadata.getId(), event.orderId(), event.parcel()).update();
        jdbc.sql("UPDATE order_summary SET parcels = parcels + 1 WHERE order_id = ?")
                .params(event.orderId()).update();
    }
    // README: end
}
