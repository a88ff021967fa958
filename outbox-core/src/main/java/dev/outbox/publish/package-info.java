/**
 * Publishing records to message brokers: the {@link dev.outbox.publish.OutboxPublisher} SPI that broker modules
 * implement, its registration as a handler, and what every broker shares: routing by event type, message headers,
 * and the failures a broker can report.
 */
@NullMarked
package dev.outbox.publish;

import org.jspecify.annotations.NullMarked;
