/** Publishing outbox records to Kafka. */
@NullMarked
package dev.outbox.kafka;

import org.jspecify.annotations.NullMarked;
