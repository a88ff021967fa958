/** Auto-configuration of the Kafka publisher. */
@NullMarked
package dev.outbox.boot.publish.kafka;

import org.jspecify.annotations.NullMarked;
