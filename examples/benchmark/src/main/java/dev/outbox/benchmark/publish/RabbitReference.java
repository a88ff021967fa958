package dev.outbox.benchmark.publish;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * RabbitMQ's own client (amqp-client) publishing as {@code outbox-rabbitmq} does: persistent, mandatory messages with
 * the outbox headers as AMQP headers, the record id as {@code message-id}, the event type as {@code type} and routing
 * key, to a durable topic exchange bound to a durable queue (as {@link RabbitTarget} declares), on one channel in
 * publisher-confirm mode, with asynchronous confirms and returns. A nack or a returned message fails the run.
 */
final class RabbitReference implements PlainClientReference {

    private final URI uri;

    RabbitReference(URI uri) {
        this.uri = uri;
    }

    @Override
    public ReferenceRun run(List<ReferenceMessage> warmup, List<ReferenceMessage> measured, int window) {
        String unique = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String exchange = "outbox-bench-ref-" + unique;
        String queue = "outbox-bench-ref-" + unique;
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(uri);
            try (Connection connection = factory.newConnection("outbox-bench-reference")) {
                Channel admin = connection.createChannel();
                admin.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, true);
                admin.queueDeclare(queue, true, false, false, null);
                admin.queueBind(queue, exchange, "#");
                try {
                    publish(connection, exchange, warmup, window);
                    return publish(connection, exchange, measured, window);
                } finally {
                    admin.queueDelete(queue);
                    admin.exchangeDelete(exchange);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (Exception e) {
            throw new IllegalStateException("RabbitMQ reference at " + uri.getHost() + ":" + uri.getPort() + ": " + e,
                    e);
        }
    }

    /** On a channel of its own, so that its confirms' delivery tags start afresh. */
    private static ReferenceRun publish(Connection connection, String exchange, List<ReferenceMessage> messages,
            int window) throws Exception {
        AckWindow inFlight = new AckWindow(window, messages.size());
        ConcurrentNavigableMap<Long, Boolean> unconfirmed = new ConcurrentSkipListMap<>();
        try (Channel channel = connection.createChannel()) {
            channel.confirmSelect();
            channel.addConfirmListener((tag, multiple) -> confirmed(unconfirmed, inFlight, tag, multiple),
                    (tag, multiple) -> inFlight.failed("nack for delivery tag " + tag));
            channel.addReturnListener(returned -> inFlight.failed("returned: " + returned.getReplyCode() + " "
                    + returned.getReplyText()));
            for (ReferenceMessage message : messages) {
                inFlight.take();
                unconfirmed.put(channel.getNextPublishSeqNo(), Boolean.TRUE);
                channel.basicPublish(exchange, message.eventType(), true, properties(message), message.body());
            }
            return inFlight.await("persistent (delivery mode 2), mandatory, publisher confirms (async listener), "
                    + "one channel, durable topic exchange and durable queue");
        }
    }

    private static void confirmed(ConcurrentNavigableMap<Long, Boolean> unconfirmed, AckWindow inFlight, long tag,
            boolean multiple) {
        if (multiple) {
            Map<Long, Boolean> upTo = unconfirmed.headMap(tag, true);
            int count = upTo.size();
            upTo.clear();
            inFlight.acknowledged(count);
        } else if (unconfirmed.remove(tag) != null) {
            inFlight.acknowledged(1);
        }
    }

    /** As {@code RabbitOutboxPublisher} builds them. */
    private static AMQP.BasicProperties properties(ReferenceMessage message) {
        Map<String, Object> headers = new HashMap<>(message.headers());
        return new AMQP.BasicProperties.Builder().headers(headers).messageId(message.recordId())
                .type(message.eventType()).contentType("application/json")
                .contentEncoding(StandardCharsets.UTF_8.name()).timestamp(Date.from(message.createdAt()))
                .deliveryMode(2).priority(0).build();
    }
}
