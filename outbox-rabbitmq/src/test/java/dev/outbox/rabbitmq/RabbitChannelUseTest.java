package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;

/**
 * How the publisher uses channels (issue 31): a long-lived channel of its own per exchange, not one per message or
 * per burst; Spring AMQP's channel cache, which held a channel with unconfirmed messages out of the cache until they
 * were confirmed, is not involved.
 */
class RabbitChannelUseTest extends RabbitPublisherFixture {

    private static final Duration DEADLINE = Duration.ofSeconds(120);

    @Test
    void burstsGoOutOnOneChannelPerExchangeInTheOrderPublished() throws Exception {
        String first = broker.declareExchange("burst-a");
        String second = broker.declareExchange("burst-b");
        String firstQueue = broker.declareQueue(first, "#");
        String secondQueue = broker.declareQueue(second, "#");
        AtomicInteger channelsOpened = new AtomicInteger();
        List<String> sentToFirst = new ArrayList<>();
        try (RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(countingChannels(channelsOpened))
                .router(record -> RabbitDestination.of(record.getEventType().equals("A") ? first : second, "order"))
                .build()) {
            for (int burst = 0; burst < 5; burst++) {
                List<CompletableFuture<?>> confirms = new ArrayList<>();
                for (int n = 0; n < 200; n++) {
                    OutboxRecord record = OutboxRecord.builder().aggregateId("agg-" + n)
                            .eventType(n % 2 == 0 ? "A" : "B").payload("{\"n\":" + n + "}").build(Clock.systemUTC());
                    if (n % 2 == 0) {
                        sentToFirst.add(record.getId());
                    }
                    confirms.add(publisher.publish(record).toCompletableFuture());
                }
                publisher.flush();
                CompletableFuture.allOf(confirms.toArray(CompletableFuture[]::new)).get(DEADLINE.toSeconds(),
                        TimeUnit.SECONDS);
            }
        }
        assertThat(channelsOpened).as("one channel per exchange for all five bursts").hasValue(2);
        assertThat(broker.takeAll(firstQueue)).map(message -> message.getMessageProperties().getMessageId())
                .containsExactlyElementsOf(sentToFirst);
        assertThat(broker.takeAll(secondQueue)).hasSize(500);
    }

    /** The fixture's connection factory, counting the channels opened on the client connections it gives. */
    private static ConnectionFactory countingChannels(AtomicInteger opened) {
        return intercept(ConnectionFactory.class, connection, "createConnection",
                springConnection -> intercept(Connection.class, (Connection) springConnection, "getDelegate",
                        client -> intercept(com.rabbitmq.client.Connection.class,
                                (com.rabbitmq.client.Connection) client, "createChannel", channel -> {
                                    opened.incrementAndGet();
                                    return channel;
                                })));
    }

    /** {@code target} as {@code type}, with what {@code method} returns passed through {@code then}. */
    private static <T> T intercept(Class<T> type, T target, String method,
            UnaryOperator<Object> then) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (proxy, called, arguments) -> {
                    Object result = invoke(called, target, arguments);
                    return called.getName().equals(method) && result != null ? then.apply(result) : result;
                }));
    }

    private static Object invoke(Method method, Object target, Object[] arguments) throws Throwable {
        try {
            return method.invoke(target, arguments);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
