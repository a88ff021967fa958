package dev.outbox.benchmark.publish;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DeliverCallback;
import dev.outbox.publish.OutboxMessageHeaders;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.TopicExchange;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.core.RabbitAdmin;

/** The RabbitMQ server at {@code uri}: a topic exchange and a durable queue bound to it, named for this run. */
public final class RabbitTarget implements BenchTarget {

    private final URI uri;
    private final CachingConnectionFactory connectionFactory;
    private final RabbitAdmin admin;
    private final String exchange;
    private final String queue;

    public RabbitTarget(URI uri) {
        this.uri = uri;
        this.connectionFactory = new CachingConnectionFactory(uri);
        this.admin = new RabbitAdmin(connectionFactory);
        String unique = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        exchange = "outbox-bench-" + unique;
        queue = "outbox-bench-" + unique;
        admin.declareExchange(new TopicExchange(exchange, true, false));
        admin.declareQueue(new Queue(queue, true));
        admin.declareBinding(BindingBuilder.bind(new Queue(queue)).to(new TopicExchange(exchange)).with("#"));
    }

    @Override
    public String name() {
        return "rabbitmq";
    }

    @Override
    public List<String> properties() {
        String[] credentials = uri.getUserInfo() == null ? new String[] {"guest", "guest"}
                : uri.getUserInfo().split(":", 2);
        return List.of("spring.rabbitmq.host=" + uri.getHost(), "spring.rabbitmq.port=" + uri.getPort(),
                "spring.rabbitmq.username=" + credentials[0], "spring.rabbitmq.password=" + credentials[1],
                "outbox.rabbitmq.enabled=true", "outbox.rabbitmq.default-destination.exchange=" + exchange);
    }

    /** Consumes the queue with a prefetch of 1,000 until {@code expected} messages came or none for 5 s. */
    @Override
    public PlainClientReference plainClientReference() {
        return new RabbitReference(uri);
    }

    @Override
    public List<Delivered> readBack(long expected) {
        List<Delivered> delivered = new CopyOnWriteArrayList<>();
        try (Connection connection = connectionFactory.createConnection();
                Channel channel = connection.createChannel(false)) {
            channel.basicQos(1_000);
            DeliverCallback callback = (tag, message) -> {
                Map<String, Object> headers = message.getProperties().getHeaders();
                delivered.add(new Delivered(String.valueOf(headers.get(OutboxMessageHeaders.RECORD_ID)),
                        String.valueOf(headers.get(OutboxMessageHeaders.AGGREGATE_ID)),
                        Long.parseLong(String.valueOf(headers.get(OutboxMessageHeaders.SEQUENCE)))));
            };
            String consumer = channel.basicConsume(queue, true, callback, tag -> { });
            int seen = -1;
            while (delivered.size() < expected && delivered.size() > seen) {
                seen = delivered.size();
                TimeUnit.SECONDS.sleep(5);
            }
            channel.basicCancel(consumer);
        } catch (Exception e) {
            throw new IllegalStateException("cannot read queue " + queue + ": " + e, e);
        }
        return List.copyOf(delivered);
    }

    @Override
    public void close() {
        try {
            admin.deleteQueue(queue);
            admin.deleteExchange(exchange);
        } finally {
            connectionFactory.destroy();
        }
    }
}
