package dev.outbox.boot.acceptance;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The business entity of the acceptance tests: its writes share transactions with outbox records. */
@Entity
@Table(name = "test_order")
public class TestOrder {

    @Id
    @Column(name = "id")
    private String id = "";

    @Column(name = "status")
    private String status = "";

    @Column(name = "amount")
    private int amount;

    protected TestOrder() {
    }

    public TestOrder(String id, String status, int amount) {
        this.id = id;
        this.status = status;
        this.amount = amount;
    }

    public String getId() {
        return id;
    }

    public String getStatus() {
        return status;
    }

    public int getAmount() {
        return amount;
    }
}
