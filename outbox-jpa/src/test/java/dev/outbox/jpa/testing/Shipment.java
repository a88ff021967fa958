package dev.outbox.jpa.testing;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An application's entity, written in the same transaction as outbox records. */
@Entity
@Table(name = "test_shipment")
public class Shipment {

    @Id
    private String id = "";

    private String destination = "";

    protected Shipment() {
        // for JPA
    }

    public Shipment(String id, String destination) {
        this.id = id;
        this.destination = destination;
    }

    public String getId() {
        return id;
    }

    public String getDestination() {
        return destination;
    }
}
