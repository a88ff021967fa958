package dev.outbox.boot.quickstart;

// README: jpa-write
import dev.outbox.Outbox;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class OrderService {

    private final PurchaseOrders orders;
    private final Outbox outbox;

    public OrderService(PurchaseOrders orders, Outbox outbox) {
        this.orders = orders;
        this.outbox = outbox;
    }

    @Transactional
    public void place(String orderId, String customer, long amountCents) {
        orders.save(new PurchaseOrder(orderId, customer, amountCents));
        outbox.schedule(new OrderPlaced(orderId, customer, amountCents), orderId);
    }
}
// README: end
