package dev.outbox.boot.handlers;

import dev.outbox.OutboxRecord;
import dev.outbox.handler.OutboxHandler;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Package-private, as Spring components often are, while the library calls it from its own package: its public
 * handler and fallback methods must be callable all the same.
 */
class ReturnsDesk {

    /** The test's second event type; no other handler subscribes to it. */
    record ParcelReturned(String orderId, int parcel) {
    }

    final List<String> received = new CopyOnWriteArrayList<>();
    final List<String> lost = new CopyOnWriteArrayList<>();

    @OutboxHandler(id = "returns", maxRetries = 0, fallback = "returnLost")
    public void receive(ParcelReturned event) {
        if (event.parcel() < 0) {
            throw new IllegalArgumentException("no parcel " + event.parcel());
        }
        received.add(event.orderId() + "/" + event.parcel());
    }

    public void returnLost(OutboxRecord record, Throwable failure) {
        lost.add(record.getAggregateId() + ": " + failure.getMessage());
    }
}
