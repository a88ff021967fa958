package dev.outbox.boot.events;

import dev.outbox.boot.events.ShopEvents.ShipmentSent;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.springframework.data.domain.AbstractAggregateRoot;

/** A Spring Data aggregate that registers its events; the repository publishes them on {@code save}. */
@Entity
@Table(name = "test_shipment")
public class Shipment extends AbstractAggregateRoot<Shipment> {

    @Id
    @Column(name = "id")
    private String id = "";

    @Column(name = "carrier")
    private String carrier = "";

    protected Shipment() {
    }

    public Shipment(String id) {
        this.id = id;
    }

    /** Hands the shipment to a carrier: the {@link ShipmentSent} event goes out when the shipment is saved. */
    // README: aggregate root
    public Shipment send(String carrier) {
        this.carrier = carrier;
        registerEvent(new ShipmentSent(id, carrier));
        return this;
    }
    // README: end

    public String getId() {
        return id;
    }

    public String getCarrier() {
        return carrier;
    }
}
