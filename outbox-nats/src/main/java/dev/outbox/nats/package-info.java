/** Publishing outbox records to NATS JetStream. */
@NullMarked
package dev.outbox.nats;

import org.jspecify.annotations.NullMarked;
