/** The events the order service publishes through the outbox, one small record per change. */
@NullMarked
package dev.outbox.example.orders.event;

import org.jspecify.annotations.NullMarked;
