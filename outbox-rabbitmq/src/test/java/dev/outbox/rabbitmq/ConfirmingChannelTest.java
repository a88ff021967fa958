package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmCallback;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Return;
import com.rabbitmq.client.ReturnCallback;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.AMQImpl;
import dev.outbox.publish.PublishException;
import dev.outbox.publish.PublishException.Reason;
import dev.outbox.rabbitmq.ConfirmingChannel.Outgoing;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.AmqpConnectException;

/**
 * How a channel settles its messages, on a stand-in for the client's channel that acknowledges, returns and closes
 * when the test says: which futures a (multiple) ack, nack, return or close completes, and which it leaves pending.
 */
class ConfirmingChannelTest {

    private static final String EXCHANGE = "orders";

    private final List<FakeChannel> opened = new ArrayList<>();
    private final ConfirmingChannel channel = new ConfirmingChannel(EXCHANGE, this::connection);

    @Test
    void aMultipleAckSettlesEveryMessageUpToItsSequenceNumberAndNoneAfter() {
        List<Outgoing> messages = messages(6);
        channel.send(messages);
        FakeChannel open = opened.get(0);

        open.ack(3, true);
        assertThat(messages.subList(0, 3)).allSatisfy(message -> assertThat(message.confirmed).isCompleted());
        assertThat(messages.subList(3, 6)).allSatisfy(message -> assertThat(message.confirmed).isNotDone());

        open.nack(5, false);
        assertThat(reason(messages.get(4))).isEqualTo(Reason.REJECTED);
        assertThat(messages.get(3).confirmed).isNotDone();

        open.ack(6, true); // settles 4 and 6; 5 was settled by its nack, and stays so
        open.ack(3, true); // a repeat finds nothing pending
        assertThat(messages).allSatisfy(message -> assertThat(message.confirmed).isDone());
        assertThat(messages.get(3).confirmed).isCompleted();
        assertThat(reason(messages.get(4))).isEqualTo(Reason.REJECTED);
    }

    @Test
    void aReturnedMessageFailsAsUnroutableOnItsAckAndTheOthersAreConfirmed() {
        List<Outgoing> messages = messages(3);
        Outgoing again = outgoing(messages.get(1).properties.getMessageId(), "key");
        channel.send(List.of(messages.get(0), messages.get(1), messages.get(2), again));
        FakeChannel open = opened.get(0);

        // two sends of one record pending: the return is the older one's, as the broker returns in the order sent
        open.returned(messages.get(1));
        open.ack(4, true);

        assertThat(messages.get(0).confirmed).isCompleted();
        assertThat(messages.get(2).confirmed).isCompleted();
        assertThat(again.confirmed).isCompleted();
        assertThat(reason(messages.get(1))).isEqualTo(Reason.UNROUTABLE);
        assertThat(messages.get(1).confirmed).failsWithin(Duration.ZERO).withThrowableThat()
                .withMessageContaining("returned by the broker, 312 NO_ROUTE: no queue is bound for the routing key");
    }

    @Test
    void aChannelTheBrokerClosesFailsWhatIsPendingAndTheNextSendOpensAnother() {
        List<Outgoing> first = messages(3);
        channel.send(first);
        opened.get(0).ack(1, false);
        opened.get(0).closeByBroker(404, "NOT_FOUND - no exchange '" + EXCHANGE + "' in vhost '/'");

        assertThat(first.get(0).confirmed).isCompleted();
        assertThat(first.subList(1, 3)).allSatisfy(message -> assertThat(reason(message))
                .isEqualTo(Reason.DESTINATION_NOT_FOUND));

        List<Outgoing> next = messages(2);
        channel.send(next);
        assertThat(opened).hasSize(2);
        opened.get(1).ack(2, true);
        assertThat(next).allSatisfy(message -> assertThat(message.confirmed).isCompleted());
    }

    @Test
    void aSendThatThrowsFailsItsMessageAndTheRestOfTheBurstGoesOut() {
        List<Outgoing> messages = messages(3);
        messages.set(1, outgoing("refused", FakeChannel.THROWS));
        channel.send(messages);

        assertThat(reason(messages.get(1))).isEqualTo(Reason.CONNECTION);
        opened.get(0).ack(3, true); // the refused send took sequence number 2, as the client's does
        assertThat(messages.get(0).confirmed).isCompleted();
        assertThat(messages.get(2).confirmed).isCompleted();
    }

    @Test
    void withoutAConnectionNothingIsSentAndEveryMessageFailsAsConnection() {
        ConfirmingChannel unreachable = new ConfirmingChannel(EXCHANGE, () -> {
            throw new AmqpConnectException(new IOException("Connection refused"));
        });
        List<Outgoing> messages = messages(2);
        unreachable.send(messages);
        assertThat(messages).allSatisfy(message -> assertThat(reason(message)).isEqualTo(Reason.CONNECTION));
    }

    @Test
    void closingFailsWhatIsPendingAndALaterSendFailsAtOnce() {
        List<Outgoing> pending = messages(2);
        channel.send(pending);
        channel.close();
        assertThat(pending).allSatisfy(message -> assertThat(reason(message)).isEqualTo(Reason.CONNECTION));

        List<Outgoing> later = messages(1);
        channel.send(later);
        assertThat(reason(later.get(0))).isEqualTo(Reason.CONNECTION);
        assertThat(opened).hasSize(1);
    }

    private Connection connection() {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, arguments) -> {
                    if (method.getName().equals("createChannel")) {
                        FakeChannel fake = new FakeChannel();
                        opened.add(fake);
                        return fake.channel;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private static List<Outgoing> messages(int count) {
        return new ArrayList<>(IntStream.rangeClosed(1, count).mapToObj(n -> outgoing("r" + n, "key")).toList());
    }

    private static Outgoing outgoing(String recordId, String routingKey) {
        AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(recordId).build();
        return new Outgoing(EXCHANGE, routingKey, properties, new byte[] {1},
                "record " + recordId + " to RabbitMQ exchange '" + EXCHANGE + "': ");
    }

    private static Reason reason(Outgoing message) {
        assertThat(message.confirmed).isCompletedExceptionally();
        try {
            message.confirmed.join();
            throw new AssertionError("completed normally");
        } catch (CompletionException e) {
            return ((PublishException) e.getCause()).reason();
        }
    }

    /** The client's channel as the tests drive it: publish sequence numbers from 1, listeners called at once. */
    private static final class FakeChannel {

        static final String THROWS = "throws";

        final Channel channel;
        private final List<ShutdownListener> shutdownListeners = new ArrayList<>();
        private @Nullable ReturnCallback returns;
        private @Nullable ConfirmCallback acks;
        private @Nullable ConfirmCallback nacks;
        private long nextSequence;
        private @Nullable ShutdownSignalException closedBy;

        FakeChannel() {
            channel = (Channel) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Channel.class},
                    (proxy, method, arguments) -> switch (method.getName()) {
                        case "addShutdownListener" -> {
                            shutdownListeners.add((ShutdownListener) arguments[0]);
                            yield null;
                        }
                        case "addReturnListener" -> {
                            returns = (ReturnCallback) arguments[0];
                            yield null;
                        }
                        case "addConfirmListener" -> {
                            acks = (ConfirmCallback) arguments[0];
                            nacks = (ConfirmCallback) arguments[1];
                            yield null;
                        }
                        case "confirmSelect" -> {
                            nextSequence = 1;
                            yield null;
                        }
                        case "getNextPublishSeqNo" -> nextSequence;
                        case "isOpen" -> closedBy == null;
                        case "basicPublish" -> {
                            publish((String) arguments[1]);
                            yield null;
                        }
                        case "close" -> {
                            close(new ShutdownSignalException(false, true,
                                    new AMQImpl.Channel.Close(200, "OK", 0, 0), proxy));
                            yield null;
                        }
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
        }

        private void publish(String routingKey) throws IOException {
            if (closedBy != null) {
                throw new AlreadyClosedException(closedBy);
            }
            nextSequence++;
            if (routingKey.equals(THROWS)) {
                throw new IOException("Broken pipe");
            }
        }

        void ack(long sequence, boolean multiple) {
            try {
                acks.handle(sequence, multiple);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }

        void nack(long sequence, boolean multiple) {
            try {
                nacks.handle(sequence, multiple);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }

        void returned(Outgoing message) {
            returns.handle(new Return(312, "NO_ROUTE", message.exchange, message.routingKey, message.properties,
                    message.body));
        }

        void closeByBroker(int replyCode, String replyText) {
            close(new ShutdownSignalException(false, false, new AMQImpl.Channel.Close(replyCode, replyText, 60, 40),
                    channel));
        }

        private void close(ShutdownSignalException cause) {
            if (closedBy == null) {
                closedBy = cause;
                shutdownListeners.forEach(listener -> listener.shutdownCompleted(cause));
            }
        }
    }
}
