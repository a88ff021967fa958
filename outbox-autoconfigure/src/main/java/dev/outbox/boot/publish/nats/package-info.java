/** Auto-configuration of the NATS JetStream publisher. */
@NullMarked
package dev.outbox.boot.publish.nats;

import org.jspecify.annotations.NullMarked;
