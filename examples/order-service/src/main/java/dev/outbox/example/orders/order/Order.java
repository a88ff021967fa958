package dev.outbox.example.orders.order;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.math.BigDecimal;
import java.time.Instant;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;
import org.jspecify.annotations.Nullable;

/**
 * An order, table {@code orders}. The {@link #getVersion() version} column gives optimistic locking: a change based on
 * a stale copy fails instead of overwriting a concurrent one. State changes go through methods that enforce the rules.
 */
@Entity
@Table(name = "orders")
public class Order {

    @Id
    @Column(name = "id", length = 36, nullable = false, updatable = false)
    private String id = "";

    @Column(name = "customer", length = 255, nullable = false, updatable = false)
    private String customer = "";

    @Column(name = "amount", precision = 19, scale = 2, nullable = false)
    private BigDecimal amount = BigDecimal.ZERO;

    @Enumerated(EnumType.STRING)
    @JdbcTypeCode(SqlTypes.VARCHAR)
    @Column(name = "status", length = 20, nullable = false)
    private OrderStatus status = OrderStatus.CREATED;

    /** Null until the order is first stored: that is how Spring Data tells a new order from an existing one. */
    @Version
    @Column(name = "version", nullable = false)
    private @Nullable Long version;

    @Column(name = "created_at", nullable = false, updatable = false)
    private Instant createdAt = Instant.EPOCH;

    @Column(name = "updated_at", nullable = false)
    private Instant updatedAt = Instant.EPOCH;

    protected Order() {
        // for JPA
    }

    /** A new order; the arguments are already validated by {@link OrderService}. */
    static Order place(String id, String customer, BigDecimal amount, Instant now) {
        Order order = new Order();
        order.id = id;
        order.customer = customer;
        order.amount = amount;
        order.status = OrderStatus.CREATED;
        order.createdAt = now;
        order.updatedAt = now;
        return order;
    }

    /** Sets a new amount; refused once the order is cancelled. */
    void changeAmount(BigDecimal newAmount, Instant now) {
        requireNotCancelled("update");
        amount = newAmount;
        status = OrderStatus.UPDATED;
        updatedAt = now;
    }

    /** Cancels the order; refused when it is cancelled already. */
    void cancel(Instant now) {
        requireNotCancelled("cancel");
        status = OrderStatus.CANCELLED;
        updatedAt = now;
    }

    private void requireNotCancelled(String operation) {
        if (status == OrderStatus.CANCELLED) {
            throw new OrderConflictException(id,
                    "Order " + id + " is cancelled; cannot " + operation + " a cancelled order");
        }
    }

    public String getId() {
        return id;
    }

    public String getCustomer() {
        return customer;
    }

    public BigDecimal getAmount() {
        return amount;
    }

    public OrderStatus getStatus() {
        return status;
    }

    /** The optimistic-locking version: 0 after the order is created, one more after every change. */
    public long getVersion() {
        return version == null ? 0 : version;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }

    public Instant getUpdatedAt() {
        return updatedAt;
    }

    @Override
    public String toString() {
        return "Order[id=" + id + ", customer=" + customer + ", amount=" + amount + ", status=" + status
                + ", version=" + version + "]";
    }
}
