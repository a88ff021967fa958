/** Orders: the JPA entity, its repository and the transactional service that writes the outbox events. */
@NullMarked
package dev.outbox.example.orders.order;

import org.jspecify.annotations.NullMarked;
