package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How the publisher uses channels (issue 31): Spring AMQP holds a channel with unconfirmed messages out of its cache
 * until they are confirmed, so a channel per message opened (and closed) a channel for nearly every record in flight.
 */
class RabbitChannelUseTest extends RabbitPublisherFixture {

    private static final Duration DEADLINE = Duration.ofSeconds(120);
    private static final AtomicInteger channelsOpened = new AtomicInteger();

    /** After the fixture's {@code connect()}: JUnit runs a superclass's {@code @BeforeAll} methods first. */
    @BeforeAll
    static void countChannels() {
        connection.addChannelListener((channel, transactional) -> channelsOpened.incrementAndGet());
    }

    @Test
    void aBurstGoesOutOnOneChannelPerExchangeInTheOrderPublished() throws Exception {
        String first = broker.declareExchange("burst-a");
        String second = broker.declareExchange("burst-b");
        String firstQueue = broker.declareQueue(first, "#");
        String secondQueue = broker.declareQueue(second, "#");
        RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(connection)
                .router(record -> RabbitDestination.of(record.getEventType().equals("A") ? first : second, "order"))
                .build();
        int before = channelsOpened.get();
        List<CompletableFuture<?>> confirms = new ArrayList<>();
        List<String> sentToFirst = new ArrayList<>();
        for (int n = 0; n < 200; n++) {
            OutboxRecord record = OutboxRecord.builder().aggregateId("agg-" + n).eventType(n % 2 == 0 ? "A" : "B")
                    .payload("{\"n\":" + n + "}").build(Clock.systemUTC());
            if (n % 2 == 0) {
                sentToFirst.add(record.getId());
            }
            confirms.add(publisher.publish(record).toCompletableFuture());
        }
        publisher.flush();

        CompletableFuture.allOf(confirms.toArray(CompletableFuture[]::new)).get(DEADLINE.toSeconds(),
                TimeUnit.SECONDS);
        assertThat(channelsOpened.get() - before).as("one channel per exchange, not one per unconfirmed message")
                .isLessThanOrEqualTo(2);
        assertThat(broker.takeAll(firstQueue)).map(message -> message.getMessageProperties().getMessageId())
                .containsExactlyElementsOf(sentToFirst);
        assertThat(broker.takeAll(secondQueue)).hasSize(100);
    }
}
