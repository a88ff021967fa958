package dev.outbox.boot.quickstart;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The business row of the README's JPA example. */
@Entity
@Table(name = "quickstart_order")
public class PurchaseOrder {

    @Id
    @Column(name = "id")
    private String id = "";

    @Column(name = "customer")
    private String customer = "";

    @Column(name = "amount_cents")
    private long amountCents;

    protected PurchaseOrder() {
    }

    public PurchaseOrder(String id, String customer, long amountCents) {
        this.id = id;
        this.customer = customer;
        this.amountCents = amountCents;
    }

    public String getId() {
        return id;
    }
}
