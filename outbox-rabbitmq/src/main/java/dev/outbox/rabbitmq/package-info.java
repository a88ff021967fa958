/** Publishing outbox records to RabbitMQ. */
@NullMarked
package dev.outbox.rabbitmq;

import org.jspecify.annotations.NullMarked;
