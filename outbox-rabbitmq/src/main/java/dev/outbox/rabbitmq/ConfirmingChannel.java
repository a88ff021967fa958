package dev.outbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Return;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.publish.PublishException;
import dev.outbox.publish.PublishException.Reason;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The channel of one exchange: a channel of its own on the application's connection, in confirm mode, that settles
 * its messages' confirms itself. A channel per exchange, because the broker closes a channel for a message to an
 * exchange that does not exist (or is refused): that costs the messages of no other exchange anything.
 *
 * <p>A sent message waits in {@link #pending} under its publish sequence number until the broker's verdict. The
 * client calls the confirm, return and shutdown listeners on its connection thread, in the order the broker sent
 * them, and a listener only completes futures: no task, no thread and no lock per confirm. A multiple ack or nack
 * settles every pending message up to its sequence number. A message no queue took comes back (basic.return) before
 * its ack, so the return marks it and its ack fails it as {@link Reason#UNROUTABLE}. When the channel closes (the
 * broker closed it, the connection broke, or {@link #close()}), everything pending on it fails with the reason
 * {@link RabbitOutboxPublisher#translate} gives, and the next {@link #send} opens a new channel.
 *
 * <p>Thread-safe: one thread sends at a time (the sequence number and the send must go together), channels of other
 * exchanges send in parallel.
 */
final class ConfirmingChannel {

    private final String exchange;
    private final Supplier<Connection> connection;
    private final ReentrantLock sending = new ReentrantLock();
    /** The channel messages go out on, or null before the first send and after {@link #close()}; under the lock. */
    private @Nullable Open open;
    /** Under the lock. */
    private boolean closed;

    /** {@code connection} gives the application's connection, opening it again when it is gone. */
    ConfirmingChannel(String exchange, Supplier<Connection> connection) {
        this.exchange = exchange;
        this.connection = connection;
    }

    /**
     * Sends the messages, in order, on this exchange's channel, opened first if it is not open. Completes each
     * message's future exceptionally when it cannot be sent; the broker's verdict completes the others later.
     */
    void send(List<Outgoing> messages) {
        sending.lock();
        try {
            Open channel;
            try {
                channel = openChannel();
            } catch (IOException | RuntimeException e) { // nothing was sent
                messages.forEach(message -> message.fail(new PublishException(Reason.CONNECTION,
                        message.where + RabbitOutboxPublisher.describe(e), e)));
                return;
            }
            messages.forEach(channel::send);
        } finally {
            sending.unlock();
        }
    }

    /** Closes the channel: what is pending on it fails as {@link Reason#CONNECTION}, and nothing is sent any more. */
    void close() {
        sending.lock();
        try {
            closed = true;
            if (open != null) {
                open.close();
                open = null;
            }
        } finally {
            sending.unlock();
        }
    }

    private Open openChannel() throws IOException {
        if (closed) {
            throw new IOException("not sent: the publisher is closed");
        }
        if (open != null && open.channel.isOpen()) {
            return open;
        }
        if (open != null) {
            open.close(); // a recovering client's channel could come back: this one is done with it
        }
        Channel channel = connection.get().createChannel();
        if (channel == null) {
            throw new IOException("no channel free on the connection: its channel_max is reached");
        }
        open = new Open(channel);
        return open;
    }

    /** One channel: its messages sent and not yet settled, by publish sequence number. */
    private final class Open {

        final Channel channel;
        final ConcurrentNavigableMap<Long, Outgoing> pending = new ConcurrentSkipListMap<>();

        Open(Channel channel) throws IOException {
            this.channel = channel;
            // added first: on a channel closed already, the client calls a shutdown listener at once
            channel.addShutdownListener(this::closed);
            channel.addReturnListener(this::returned);
            channel.addConfirmListener((sequence, multiple) -> settle(sequence, multiple, true),
                    (sequence, multiple) -> settle(sequence, multiple, false));
            channel.confirmSelect();
        }

        /** Under the lock. The entry goes in before the send: the ack may come before {@code basicPublish} returns. */
        void send(Outgoing message) {
            long sequence = channel.getNextPublishSeqNo();
            pending.put(sequence, message);
            try {
                channel.basicPublish(exchange, message.routingKey, true, message.properties, message.body);
            } catch (IOException | RuntimeException e) { // a closed channel throws ShutdownSignalException
                if (pending.remove(sequence, message)) {
                    message.fail(failure(message, e));
                }
            }
        }

        /** On the connection thread. */
        private void settle(long sequence, boolean multiple, boolean ack) {
            if (!multiple) {
                Outgoing message = pending.remove(sequence);
                if (message != null) {
                    message.settle(ack);
                }
                return;
            }
            for (Long settled : pending.headMap(sequence, true).keySet()) {
                Outgoing message = pending.remove(settled);
                if (message != null) {
                    message.settle(ack);
                }
            }
        }

        /**
         * On the connection thread, before the returned message's ack. A return names no sequence number: it is the
         * oldest message pending with its record id (unique per record), exchange and routing key that was not
         * returned yet. Two sends of one record can be pending at once only after an acknowledgement timeout; the
         * broker routes and returns them in the order sent, so the oldest is the right one unless the bindings
         * changed between the two sends (then the earlier one fails, and the record is tried again).
         */
        private void returned(Return returned) {
            String messageId = returned.getProperties().getMessageId();
            for (Outgoing message : pending.values()) {
                if (message.returned == null && message.properties.getMessageId().equals(messageId)
                        && message.routingKey.equals(returned.getRoutingKey())
                        && exchange.equals(returned.getExchange())) {
                    message.returned = returned.getReplyCode() + " " + returned.getReplyText();
                    return;
                }
            }
        }

        /** On the connection thread, or the thread that closed the channel. */
        private void closed(ShutdownSignalException cause) {
            failPending(message -> failure(message, cause));
        }

        void close() {
            try {
                channel.close();
            } catch (IOException | TimeoutException | RuntimeException e) {
                // closed already, or the connection is gone: either way the shutdown listener failed what was pending
            }
            // what the listener may have missed: a close that timed out waiting for the broker's close-ok
            failPending(message -> new PublishException(Reason.CONNECTION,
                    message.where + "not confirmed before its channel was closed"));
        }

        /** Fails every message still pending; one that a confirm settles meanwhile is left to it. */
        private void failPending(Function<Outgoing, PublishException> failure) {
            for (Long sequence : pending.keySet()) {
                Outgoing message = pending.remove(sequence);
                if (message != null) {
                    message.fail(failure.apply(message));
                }
            }
        }

        private PublishException failure(Outgoing message, Exception e) {
            return RabbitOutboxPublisher.translate(message.where, exchange, message.body.length,
                    RabbitOutboxPublisher.describe(e), e);
        }
    }

    /**
     * A message published and not yet settled: {@code confirmed} completes when the broker took it, or exceptionally
     * when it refused it, returned it, or the outcome is unknown.
     */
    static final class Outgoing {

        final String exchange;
        final String routingKey;
        final AMQP.BasicProperties properties;
        final byte[] body;
        final String where;
        final CompletableFuture<@Nullable Void> confirmed = new CompletableFuture<>();
        /** The broker's reply code and text when it returned the message; written and read on the connection thread. */
        @Nullable String returned;

        Outgoing(String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body, String where) {
            this.exchange = exchange;
            this.routingKey = routingKey;
            this.properties = properties;
            this.body = body;
            this.where = where;
        }

        void settle(boolean ack) {
            String returnedBecause = returned;
            if (returnedBecause != null) {
                fail(new PublishException(Reason.UNROUTABLE, where + "returned by the broker, " + returnedBecause
                        + ": no queue is bound for the routing key"));
            } else if (ack) {
                confirmed.complete(null);
            } else {
                fail(new PublishException(Reason.REJECTED, where + "negatively acknowledged by the broker"));
            }
        }

        void fail(PublishException failure) {
            confirmed.completeExceptionally(failure);
        }
    }
}
