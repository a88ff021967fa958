/** The outbox record processor and the table of events it has handled. */
@NullMarked
package dev.outbox.example.orders.handling;

import org.jspecify.annotations.NullMarked;
