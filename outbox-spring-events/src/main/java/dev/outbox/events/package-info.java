/**
 * Spring application events into the outbox: an event marked with {@link dev.outbox.events.OutboxEvent}, implementing
 * {@link dev.outbox.events.AggregateEvent} or annotated with Spring Modulith's {@code @Externalized}, published with
 * {@code ApplicationEventPublisher.publishEvent(..)} (or by a Spring Data aggregate on {@code save}), is written as an
 * outbox record in the publisher's transaction.
 */
@NullMarked
package dev.outbox.events;

import org.jspecify.annotations.NullMarked;
