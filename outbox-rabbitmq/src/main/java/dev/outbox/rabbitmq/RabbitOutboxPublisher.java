package dev.outbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import dev.outbox.OutboxRecord;
import dev.outbox.internal.Checks;
import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.publish.OutboxPublisher;
import dev.outbox.publish.OutboxRouter;
import dev.outbox.publish.PublishException;
import dev.outbox.publish.PublishException.Reason;
import dev.outbox.rabbitmq.ConfirmingChannel.Outgoing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionListener;

/**
 * Publishes records to RabbitMQ with the RabbitMQ client, on the application's connection: one persistent message per
 * record to the exchange and routing key its router names, the payload as body, the
 * {@linkplain OutboxMessageHeaders outbox headers} as AMQP headers, the record id as {@code message-id} and the event
 * type as {@code type}. A record counts as published when the broker confirms it (a publisher confirm) <em>and</em>
 * did not return it: every message is mandatory, so a message no queue is bound for comes back and fails as
 * {@link Reason#UNROUTABLE} instead of vanishing.
 *
 * <p>Errors: an exchange that does not exist is {@link Reason#DESTINATION_NOT_FOUND}, a refused permission
 * {@link Reason#NOT_AUTHORIZED}, a message over the broker's {@code max_message_size} {@link Reason#TOO_LARGE} (the
 * broker closes the channel with 404, 403 or 406; with {@link Builder#maxMessageSize(long)} a message over that size
 * fails before it is sent, so the broker never closes a channel that other records share for it); a negative
 * acknowledgement (a queue full with
 * {@code x-overflow=reject-publish}, say) is a retryable {@link Reason#REJECTED}, and a connection that is down or
 * breaks before the confirm a retryable {@link Reason#CONNECTION}.
 *
 * <p><b>Channels.</b> The publisher opens a channel of its own per exchange on the connection the factory gives
 * ({@link Connection#getDelegate()}), outside the factory's channel cache, puts it in confirm mode and settles its
 * confirms itself on the client's connection thread (see {@link ConfirmingChannel}): no task or thread per confirm.
 * A {@link #publish} stage therefore completes on that thread, which also reads the connection's other frames: what
 * depends on it must be quick (the engine only queues the outcome).
 * A channel per exchange, so that an exchange that does not exist (the broker closes the channel) costs a retry to no
 * message of another exchange. A closed channel fails what is pending on it, and the next flush opens another one,
 * on a new connection if the connection is gone. {@link #close()} closes the channels (a Spring bean's destroy method
 * does, by inference); the connection factory is the application's, and this publisher never closes it.
 *
 * <p><b>Sends that would block.</b> A broker short of memory or disk (a resource alarm) blocks the connections that
 * publish: it stops reading from them, and a send then waits in the socket's write, which the RabbitMQ client does not
 * time out. So while the broker says the connection is blocked ({@code connection.blocked}), a record is not sent: it
 * fails at once as a retryable {@link Reason#REJECTED}, and no engine worker waits. The alarm is the broker's, so it
 * stops every destination alike. {@link #publish} only builds the message; {@link #flush()} sends the thread's burst
 * on the channel of each exchange, in order, and waits only to open that channel when it is not open (one round trip)
 * or while another thread sends on it; a message sent but never confirmed is bounded by the
 * {@linkplain Builder#acknowledgementTimeout acknowledgement timeout}, and holds no worker. A record's tracing span
 * ({@code outbox.record.process}) therefore runs from its {@code publish} call until the flush of its burst returned:
 * it covers the send, not the wait for the confirm (see {@link dev.outbox.spi.OutboxObservation#observePublish}).
 *
 * <p>Any connection factory will do: the publisher needs neither Spring AMQP's publisher confirms nor its returns
 * ({@code spring.rabbitmq.publisher-confirm-type}, {@code spring.rabbitmq.publisher-returns}), which configure only
 * the factory's own cached channels. Thread-safe.
 */
public final class RabbitOutboxPublisher implements OutboxPublisher, AutoCloseable {

    private static final String NOT_FOUND = "reply-code=404";
    private static final String ACCESS_REFUSED = "reply-code=403";
    private static final String PRECONDITION_FAILED = "reply-code=406";
    private static final long NO_SIZE_LIMIT = Long.MAX_VALUE;
    private static final int PERSISTENT = 2;
    private static final Pattern MAX_SIZE = Pattern.compile("larger than configured max size (\\d+)");

    private final ConnectionFactory connectionFactory;
    private final OutboxRouter<RabbitDestination> router;
    private final OutboxMessageHeaders headers;
    private final Duration acknowledgementTimeout;
    private final long maxMessageSize;
    /** A channel per exchange published to: long-lived, so exchanges are expected to be few (as routes are). */
    private final Map<String, ConfirmingChannel> channels = new ConcurrentHashMap<>();
    private final Object connecting = new Object();
    /** The messages this thread published since its last {@link #flush()}. */
    private final ThreadLocal<List<Outgoing>> burst = ThreadLocal.withInitial(ArrayList::new);
    /** Why the broker blocked the connection (an alarm: memory or disk), or null while it takes messages. */
    private volatile @Nullable String blockedBecause;
    /** The factory's connection the channels are on; under {@link #connecting}. */
    private @Nullable Connection connection;
    private volatile boolean closed;

    private RabbitOutboxPublisher(Builder builder) {
        this.router = Objects.requireNonNull(builder.router, "router");
        this.headers = builder.headers;
        this.acknowledgementTimeout = builder.acknowledgementTimeout;
        this.maxMessageSize = builder.maxMessageSize;
        this.connectionFactory = builder.connectionFactory;
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
        byte[] body = record.getPayload().getBytes(StandardCharsets.UTF_8);
        long size = body.length;
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
        Outgoing outgoing = new Outgoing(destination.exchange(), routingKey, properties(record), body, where);
        burst.get().add(outgoing);
        return outgoing.confirmed;
    }

    /**
     * Sends the messages this thread's {@link #publish} calls buffered, in the order published, on the channel of
     * each exchange. Threads that flush to different exchanges send in parallel; to the same exchange, one after
     * the other (a channel's publish sequence numbers must match the order of its sends).
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
        byExchange.forEach((exchange, sending) -> channelOf(exchange).send(sending));
    }

    private ConfirmingChannel channelOf(String exchange) {
        ConfirmingChannel channel = channels.get(exchange);
        if (channel != null) {
            return channel;
        }
        channel = channels.computeIfAbsent(exchange, name -> new ConfirmingChannel(name, this::rabbitConnection));
        if (closed) {
            channel.close(); // a flush racing close() must not leave a channel open
        }
        return channel;
    }

    /**
     * The client connection the channels are opened on. Spring AMQP opens its connection again when a channel is
     * asked of a connection that broke (its {@code createConnection()} returns the broken one until then), so a
     * channel of the factory's own is taken and handed back to its cache first.
     */
    private com.rabbitmq.client.Connection rabbitConnection() {
        synchronized (connecting) {
            Connection held = connection;
            if (held == null || !held.isOpen()) {
                if (held != null) {
                    held.close(); // hands a broken connection back to a factory that caches connections
                }
                held = connectionFactory.createConnection();
                connection = held;
            }
            if (!held.isOpen()) {
                try {
                    held.createChannel(false).close();
                } catch (IOException | TimeoutException e) {
                    throw new AmqpException("cannot open the connection again: " + describe(e), e);
                }
            }
            return held.getDelegate();
        }
    }

    /**
     * Closes the channels this publisher opened; a message they had not confirmed fails as a retryable
     * {@link Reason#CONNECTION}, and a later flush fails its messages so. The connection stays the factory's.
     */
    @Override
    public void close() {
        closed = true;
        channels.values().forEach(ConfirmingChannel::close);
        synchronized (connecting) {
            if (connection != null) {
                connection.close(); // back to the factory: a no-op for its shared connection
                connection = null;
            }
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

    private AMQP.BasicProperties properties(OutboxRecord record) {
        return new AMQP.BasicProperties.Builder()
                .headers(Collections.unmodifiableMap(headers.of(record)))
                .messageId(record.getId())
                .type(record.getEventType())
                .contentType(headers.contentType())
                .contentEncoding(StandardCharsets.UTF_8.name())
                .timestamp(Date.from(record.getCreatedAt()))
                .deliveryMode(PERSISTENT)
                .build();
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

    /** The exception and its root cause: a wrapper's own message is often only the cause's class name. */
    static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == failure ? String.valueOf(failure.getMessage()) : failure.getMessage() + " (" + root + ")";
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

        /** @throws IllegalArgumentException without a router */
        public RabbitOutboxPublisher build() {
            if (router == null) {
                throw new IllegalArgumentException(
                        "router is required: where records go (an exchange and routing key per event type)");
            }
            return new RabbitOutboxPublisher(this);
        }
    }
}
