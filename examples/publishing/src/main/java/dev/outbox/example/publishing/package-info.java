/**
 * Orders written with their outbox records in one transaction, published by the outbox to Kafka, RabbitMQ or NATS
 * JetStream (a Spring profile each), and consumed back from the broker.
 */
@NullMarked
package dev.outbox.example.publishing;

import org.jspecify.annotations.NullMarked;
