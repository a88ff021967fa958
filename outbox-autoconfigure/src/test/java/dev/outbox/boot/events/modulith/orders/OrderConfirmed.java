package dev.outbox.boot.events.modulith.orders;

import org.springframework.modulith.events.Externalized;

/** An event of the orders module for other services: to the topic before {@code ::}, keyed by the order. */
// README: externalized event
@Externalized("order-confirmations::#{#this.orderId()}")
public record OrderConfirmed(String orderId, int line) {
}
// README: end
