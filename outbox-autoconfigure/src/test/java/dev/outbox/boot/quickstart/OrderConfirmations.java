package dev.outbox.boot.quickstart;

// README: jpa-handler
import dev.outbox.handler.OutboxHandler;
import dev.outbox.handler.RecordMetadata;
import org.springframework.stereotype.Component;

@Component
public class OrderConfirmations {

    private final Mailer mailer;

    public OrderConfirmations(Mailer mailer) {
        this.mailer = mailer;
    }

    @OutboxHandler(id = "order-confirmations")
    public void confirm(OrderPlaced event, RecordMetadata metadata) {
        // the record id stays the same when a record is handed over again: an idempotency key
        mailer.send(event.customer(), "Order " + event.orderId() + " placed", metadata.getId());
    }
}
// README: end
