/**
 * Typed handlers: each receives the payload of its event type, read into its parameter type, with the record's
 * metadata. Several handlers may subscribe to one event type; each gets a record of its own, with its own status,
 * attempts, retry policy and fallback, in the aggregate's order. A handler whose effects live in the outbox's own
 * database may be {@linkplain HandlerRegistration.Builder#transactional(boolean) transactional}: its writes there then
 * commit with its record's completion, exactly once.
 */
@NullMarked
package dev.outbox.handler;

import org.jspecify.annotations.NullMarked;
