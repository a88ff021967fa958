package dev.outbox.rabbitmq;

import dev.outbox.OutboxRecord;
import dev.outbox.internal.Checks;
import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.publish.OutboxPublisher;
import dev.outbox.publish.OutboxRouter;
import dev.outbox.publish.PublishException;
import dev.outbox.publish.PublishException.Reason;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.AmqpAuthenticationException;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.ReturnedMessage;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionListener;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * Publishes records to RabbitMQ with Spring AMQP: one persistent message per record to the exchange and routing key
 * its router names, the payload as body, the {@linkplain OutboxMessageHeaders outbox headers} as AMQP headers, the
 * record id as {@code message-id} and the event type as {@code type}. A record counts as published when the broker
 * confirms it (a correlated publisher confirm) <em>and</em> did not return it: every message is mandatory, so a
 * message no queue is bound for comes back and fails as {@link Reason#UNROUTABLE} instead of vanishing.
 *
 * <p>Errors: an exchange that does not exist is {@link Reason#DESTINATION_NOT_FOUND}, a refused permission
 * {@link Reason#NOT_AUTHORIZED}, a message over the broker's {@code max_message_size} {@link Reason#TOO_LARGE} (the
 * broker closes the channel with 404, 403 or 406; with {@link Builder#maxMessageSize(long)} a message over that size
 * fails before it is sent, so the broker never closes a channel that other records share for it); a negative
 * acknowledgement (a queue full with
 * {@code x-overflow=reject-publish}, say) is a retryable {@link Reason#REJECTED}, and a connection that is down or
 * breaks before the confirm a retryable {@link Reason#CONNECTION}.
 *
 * <p><b>Sends that would block.</b> A broker short of memory or disk (a resource alarm) blocks the connections that
 * publish: it stops reading from them, and a send then waits in the socket's write, which the RabbitMQ client does not
 * time out. So while the broker says the connection is blocked ({@code connection.blocked}), a record is not sent: it
 * fails at once as a retryable {@link Reason#REJECTED}, and no engine worker waits. The alarm is the broker's, so it
 * stops every destination alike. {@link #publish} only builds the message; {@link #flush()} sends the thread's burst
 * on one channel per exchange, in order, and waits only to open a channel when the cache has none free (one round
 * trip, or the factory's {@code channelCheckoutTimeout} when it limits the channels); a message sent but never
 * confirmed is bounded by the {@linkplain Builder#acknowledgementTimeout acknowledgement timeout}, and holds no worker.
 * A record's tracing span ({@code outbox.record.process}) therefore runs from its {@code publish} call until the flush
 * of its burst returned: it covers the send, not the wait for the confirm (see
 * {@link dev.outbox.spi.OutboxObservation#observePublish}).
 *
 * <p>The connection factory must have correlated publisher confirms and returns switched on
 * ({@code spring.rabbitmq.publisher-confirm-type=correlated}, {@code spring.rabbitmq.publisher-returns=true}); the
 * builder refuses one without. Immutable and thread-safe; the connection factory is the application's: this publisher
 * never closes it.
 */
public final class RabbitOutboxPublisher implements OutboxPublisher {

    private static final String NOT_FOUND = "reply-code=404";
    private static final String ACCESS_REFUSED = "reply-code=403";
    private static final String PRECONDITION_FAILED = "reply-code=406";
    private static final long NO_SIZE_LIMIT = Long.MAX_VALUE;
    private static final Pattern MAX_SIZE = Pattern.compile("larger than configured max size (\\d+)");

    private final RabbitTemplate template;
    private final OutboxRouter<RabbitDestination> router;
    private final OutboxMessageHeaders headers;
    private final Duration acknowledgementTimeout;
    private final long maxMessageSize;
    private final AtomicLong sends = new AtomicLong();
    /** The messages this thread published since its last {@link #flush()}. */
    private final ThreadLocal<List<Outgoing>> burst = ThreadLocal.withInitial(ArrayList::new);
    /** Why the broker blocked the connection (an alarm: memory or disk), or null while it takes messages. */
    private volatile @Nullable String blockedBecause;

    private RabbitOutboxPublisher(Builder builder) {
        this.router = Objects.requireNonNull(builder.router, "router");
        this.headers = builder.headers;
        this.acknowledgementTimeout = builder.acknowledgementTimeout;
        this.maxMessageSize = builder.maxMessageSize;
        this.template = new RabbitTemplate(builder.connectionFactory);
        this.template.setMandatory(true);
        // called at once for a connection that exists already, then for every new one
        builder.connectionFactory.addConnectionListener(new ConnectionListener() {
            @Override
            public void onCreate(Connection connection) {
                blockedBecause = null;
                connection.getDelegate().addBlockedListener(reason -> blockedBecause = reason,
                        () -> blockedBecause = null);
            }
        });
    }

    public static Builder builder(ConnectionFactory connectionFactory) {
        return new Builder(connectionFactory);
    }

    @Override
    public CompletionStage<?> publish(OutboxRecord record) {
        RabbitDestination destination = router.destinationFor(record);
        String routingKey = destination.routingKey() == null ? record.getEventType() : destination.routingKey();
        String where = "record " + record.getId() + " to RabbitMQ exchange '" + destination.exchange()
                + "' with routing key '" + routingKey + "': ";
        // unique per send: a re-send of the record must not meet the confirm of an earlier attempt
        CorrelationData correlation = new CorrelationData(record.getId() + "#" + sends.incrementAndGet());
        Message message = message(record);
        long size = message.getBody().length;
        if (size > maxMessageSize) {
            throw new PublishException(Reason.TOO_LARGE, where + size + " bytes, over the broker's max_message_size of "
                    + maxMessageSize + " bytes this publisher was given: not sent");
        }
        String blocked = blockedBecause;
        if (blocked != null) {
            // the broker no longer reads from a blocked connection: the send would hang in the socket's write
            throw new PublishException(Reason.REJECTED, where + "not sent: the broker blocked the connection ("
                    + blocked + ") until its alarm clears");
        }
        Outgoing outgoing = new Outgoing(destination.exchange(), routingKey, message, correlation, where, size);
        burst.get().add(outgoing);
        return outgoing.sent.thenCompose(sent -> correlation.getFuture()).thenCompose(confirm -> {
            ReturnedMessage returned = correlation.getReturned();
            if (confirm.ack() && returned == null) {
                return CompletableFuture.completedFuture(confirm);
            }
            if (returned != null) {
                return CompletableFuture.failedFuture(new PublishException(Reason.UNROUTABLE, where
                        + "returned by the broker, " + returned.getReplyCode() + " " + returned.getReplyText()
                        + ": no queue is bound for the routing key"));
            }
            return CompletableFuture.failedFuture(confirm.reason() == null
                    ? new PublishException(Reason.REJECTED, where + "negatively acknowledged by the broker")
                    : translate(where, destination.exchange(), size, confirm.reason(), null));
        });
    }

    /**
     * Sends the messages this thread's {@link #publish} calls buffered, in the order published, on one channel per
     * exchange. Spring AMQP keeps a channel with messages unconfirmed out of its cache until they are confirmed (a
     * thread of its own waits for them): a channel per message opened a channel, and closed one, for most messages
     * once more were in flight than the cache holds. A channel per exchange, so that an exchange that does not exist
     * (the broker closes the channel) costs a retry to no message of another exchange.
     */
    @Override
    public void flush() {
        List<Outgoing> outgoing = burst.get();
        if (outgoing.isEmpty()) {
            return;
        }
        Map<String, List<Outgoing>> byExchange = new LinkedHashMap<>();
        outgoing.forEach(message -> byExchange.computeIfAbsent(message.exchange, e -> new ArrayList<>()).add(message));
        outgoing.clear();
        byExchange.values().forEach(this::sendOnOneChannel);
    }

    private void sendOnOneChannel(List<Outgoing> sending) {
        try {
            template.invoke(operations -> {
                sending.forEach(this::send);
                return null;
            });
        } catch (AmqpException e) { // no channel: nothing was sent
            sending.forEach(message -> message.sent.completeExceptionally(new PublishException(Reason.CONNECTION,
                    message.where + describe(e), e)));
        } finally {
            sending.forEach(message -> message.sent.completeExceptionally(new PublishException(Reason.CONNECTION,
                    message.where + "not sent")));
        }
    }

    /** On the channel {@link #flush()} holds. */
    private void send(Outgoing outgoing) {
        try {
            template.send(outgoing.exchange, outgoing.routingKey, outgoing.message, outgoing.correlation);
            outgoing.sent.complete(null);
        } catch (AmqpAuthenticationException e) {
            outgoing.sent.completeExceptionally(new PublishException(Reason.NOT_AUTHORIZED,
                    outgoing.where + e.getMessage(), e));
        } catch (AmqpException e) {
            outgoing.sent.completeExceptionally(translate(outgoing.where, outgoing.exchange, outgoing.size,
                    describe(e), e));
        }
    }

    @Override
    public Duration acknowledgementTimeout() {
        return acknowledgementTimeout;
    }

    @Override
    public String toString() {
        return "RabbitOutboxPublisher{" + router + ", " + headers + ", acknowledgementTimeout="
                + acknowledgementTimeout + (maxMessageSize == NO_SIZE_LIMIT ? "" : ", maxMessageSize=" + maxMessageSize)
                + "}";
    }

    private Message message(OutboxRecord record) {
        MessageProperties properties = new MessageProperties();
        headers.of(record).forEach(properties::setHeader);
        properties.setMessageId(record.getId());
        properties.setType(record.getEventType());
        properties.setContentType(headers.contentType());
        properties.setContentEncoding(StandardCharsets.UTF_8.name());
        properties.setTimestamp(Date.from(record.getCreatedAt()));
        properties.setDeliveryMode(MessageDeliveryMode.PERSISTENT);
        return new Message(record.getPayload().getBytes(StandardCharsets.UTF_8), properties);
    }

    /**
     * A channel the broker closed, or a connection that failed, by its reply code: the broker says 404 for a missing
     * exchange, 403 for a refused permission, 406 for a message over its size limit. Channels are shared: when the
     * broker closes one for another message, every message in flight on it is refused with that message's reason. So a
     * refusal counts as this record's only when it names this record's exchange (404, 403) or a limit this message is
     * over (406); otherwise the outcome is unknown, and the record is retried as after a lost connection.
     */
    static PublishException translate(String where, String exchange, long size, String failure,
            @Nullable Throwable cause) {
        boolean namesExchange = failure.contains("exchange '" + exchange + "'");
        if (failure.contains(NOT_FOUND) && namesExchange) {
            return new PublishException(Reason.DESTINATION_NOT_FOUND, where + failure, cause);
        }
        if (failure.contains(ACCESS_REFUSED) && namesExchange) {
            return new PublishException(Reason.NOT_AUTHORIZED, where + failure, cause);
        }
        Matcher limit = MAX_SIZE.matcher(failure);
        if (failure.contains(PRECONDITION_FAILED) && limit.find() && size > Long.parseLong(limit.group(1))) {
            return new PublishException(Reason.TOO_LARGE, where + size + " bytes: " + failure, cause);
        }
        return new PublishException(Reason.CONNECTION, where + failure, cause);
    }

    /** The exception and its root cause: Spring AMQP's own message is often only the cause's class name. */
    private static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == failure ? String.valueOf(failure.getMessage()) : failure.getMessage() + " (" + root + ")";
    }

    /** A message published and not yet sent: {@code sent} completes when it was, or failed to be. */
    private record Outgoing(String exchange, String routingKey, Message message, CorrelationData correlation,
            String where, long size, CompletableFuture<@Nullable Void> sent) {
        Outgoing(String exchange, String routingKey, Message message, CorrelationData correlation, String where,
                long size) {
            this(exchange, routingKey, message, correlation, where, size, new CompletableFuture<>());
        }
    }

    /** Not thread-safe. */
    public static final class Builder {

        private final ConnectionFactory connectionFactory;
        private @Nullable OutboxRouter<RabbitDestination> router;
        private OutboxMessageHeaders headers = OutboxMessageHeaders.defaults();
        private Duration acknowledgementTimeout = DEFAULT_ACKNOWLEDGEMENT_TIMEOUT;
        private long maxMessageSize = NO_SIZE_LIMIT;

        private Builder(ConnectionFactory connectionFactory) {
            this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
        }

        /**
         * Where each record goes: an exchange and a routing key; see {@link dev.outbox.publish.EventTypeRouting} and
         * {@link RabbitDestinationRouter}. Required.
         */
        public Builder router(OutboxRouter<RabbitDestination> router) {
            this.router = Objects.requireNonNull(router, "router");
            return this;
        }

        public Builder headers(OutboxMessageHeaders headers) {
            this.headers = Objects.requireNonNull(headers, "headers");
            return this;
        }

        /** How long the engine waits for the broker's confirm before it counts the attempt as timed out. */
        public Builder acknowledgementTimeout(Duration acknowledgementTimeout) {
            this.acknowledgementTimeout = Checks.positive("acknowledgementTimeout", acknowledgementTimeout);
            return this;
        }

        /**
         * The broker's {@code max_message_size} (RabbitMQ's default: 128 MiB in 3.x, 16 MiB from 4.0): a message body
         * over it fails as {@link Reason#TOO_LARGE} without being sent. Without it the broker refuses such a message
         * by closing the channel, and every other message in flight on that channel is retried. Not set by default.
         */
        public Builder maxMessageSize(long bytes) {
            this.maxMessageSize = Checks.atLeast("maxMessageSize", bytes, 1);
            return this;
        }

        /**
         * @throws IllegalArgumentException without a router, or when the connection factory does not have correlated
         *     publisher confirms and returns: without them a record could not wait for the broker's verdict
         */
        public RabbitOutboxPublisher build() {
            if (router == null) {
                throw new IllegalArgumentException(
                        "router is required: where records go (an exchange and routing key per event type)");
            }
            if (!connectionFactory.isPublisherConfirms() || !connectionFactory.isPublisherReturns()) {
                throw new IllegalArgumentException("the connection factory must have correlated publisher confirms "
                        + "and returns (publisherConfirms=" + connectionFactory.isPublisherConfirms()
                        + ", publisherReturns=" + connectionFactory.isPublisherReturns() + "): set "
                        + "spring.rabbitmq.publisher-confirm-type=correlated and "
                        + "spring.rabbitmq.publisher-returns=true, or "
                        + "CachingConnectionFactory.setPublisherConfirmType(CORRELATED) and setPublisherReturns(true)");
            }
            return new RabbitOutboxPublisher(this);
        }
    }
}
