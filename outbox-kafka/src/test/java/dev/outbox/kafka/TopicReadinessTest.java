package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.PartitionInfo;
import org.junit.jupiter.api.Test;

/**
 * A topic's verdict is kept for the expiry by the clock it is given, and asked for again after it, or at once after
 * {@code forget}: a topic created later is found without a restart, and a steady topic costs one metadata fetch per
 * expiry however many records go there.
 */
class TopicReadinessTest {

    private static final Duration EXPIRY = Duration.ofSeconds(5);

    private final AtomicLong nanos = new AtomicLong(42);
    private final AtomicInteger metadataFetches = new AtomicInteger();
    private final MockProducer<String, byte[]> producer = new MockProducer<>() {
        @Override
        public synchronized List<PartitionInfo> partitionsFor(String topic) {
            metadataFetches.incrementAndGet();
            return List.of();
        }
    };
    private final TopicReadiness topics = new TopicReadiness(producer, null, Duration.ofSeconds(1), EXPIRY,
            Runnable::run, nanos::get);

    @Test
    void aVerdictIsKeptForTheExpiryByTheGivenClockThenAskedForAgain() {
        CompletableFuture<Void> first = topics.of("orders");
        assertThat(first).isCompleted();

        nanos.addAndGet(EXPIRY.toNanos() - 1);
        assertThat(topics.of("orders")).as("within the expiry").isSameAs(first);
        assertThat(metadataFetches).hasValue(1);

        nanos.addAndGet(1);
        assertThat(topics.of("orders")).as("expired").isNotSameAs(first).isCompleted();
        assertThat(metadataFetches).hasValue(2);
    }

    @Test
    void aForgottenVerdictIsAskedForAgainAtOnce() {
        CompletableFuture<Void> first = topics.of("orders");

        topics.forget("orders");

        assertThat(topics.of("orders")).isNotSameAs(first);
        assertThat(metadataFetches).hasValue(2);
    }
}
