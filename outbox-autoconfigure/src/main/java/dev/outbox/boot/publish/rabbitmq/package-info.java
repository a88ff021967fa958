/** Auto-configuration of the RabbitMQ publisher. */
@NullMarked
package dev.outbox.boot.publish.rabbitmq;

import org.jspecify.annotations.NullMarked;
