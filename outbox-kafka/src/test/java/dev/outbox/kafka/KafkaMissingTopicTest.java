package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.publish.EventTypeRouting;
import dev.outbox.publish.PublishException;
import dev.outbox.publish.PublishException.Reason;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.testkit.PublishingRig;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, isolation by destination: records to a topic that does not exist fail at once, from one lookup of the
 * topic, without a send that waits {@code max.block.ms} for the topic's metadata on an engine worker; the records of a
 * topic that exists go on meanwhile. The producer and the admin client are counted where the publisher calls them.
 */
class KafkaMissingTopicTest {

    private static final Duration DEADLINE = Duration.ofSeconds(120);
    private static KafkaTestBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = KafkaTestBroker.start();
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void recordsToAMissingTopicFailAtOnceFromOneLookupWithoutASendWhileAnotherTopicsRecordsComplete() {
        String topic = broker.createTopic("present", 2, Map.of());
        String missing = "missing-" + topic;
        Calls calls = new Calls();
        try (Producer<String, byte[]> producer = broker.producer(Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000))) {
            KafkaOutboxPublisher publisher = KafkaOutboxPublisher.builder(calls.producer(producer))
                    .router(EventTypeRouting.<String>builder("Kafka topic")
                            .route("OrderPlaced", topic)
                            .route("Missing", missing)
                            .build())
                    .topicLookup(calls.admin(broker.admin()))
                    .build();
            try (PublishingRig rig = PublishingRig.start("kafka", publisher,
                    OutboxRetryPolicy.fixed(Duration.ofMillis(200)).withMaxRetries(5))) {
                List<OutboxRecord> toMissing = IntStream.rangeClosed(1, 20)
                        .mapToObj(n -> rig.write("lost-" + n, "Missing", "{}")).toList();
                List<OutboxRecord> fine = rig.write(200, 5, "OrderPlaced");

                await().atMost(DEADLINE).until(() -> rig.count(OutboxRecordStatus.NEW) == 0);
                assertThat(toMissing).allSatisfy(record -> {
                    OutboxRecord failed = rig.stored(record);
                    assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
                    assertThat(failed.getRetryCount()).isZero();
                    assertThat(failed.getLastError()).contains("Kafka topic '" + missing + "'")
                            .contains("the topic does not exist");
                });
                assertThat(fine).allSatisfy(record -> assertThat(rig.stored(record).getStatus())
                        .isEqualTo(OutboxRecordStatus.COMPLETED));
                assertThat(rig.failures(Reason.DESTINATION_NOT_FOUND)).isEqualTo(20);
            }
        }
        assertThat(calls.sends(missing)).as("sends that reached the producer, each a wait of max.block.ms").isZero();
        assertThat(calls.metadataWaits(missing)).as("producer.partitionsFor of the missing topic").isZero();
        assertThat(calls.lookups(missing)).as("lookups of the missing topic, shared by its 20 records")
                .isBetween(1, 19);
        assertThat(calls.sends(topic)).isGreaterThanOrEqualTo(1_000);
        assertThat(broker.readAll(topic, 1_000)).hasSize(1_000);
    }

    @Test
    void aTopicCreatedAfterItWasFoundMissingIsFoundByALaterCheck() throws Exception {
        String topic = "later-" + broker.createTopic("name", 1, Map.of());
        try (Producer<String, byte[]> producer = broker.producer(Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000))) {
            KafkaOutboxPublisher publisher = KafkaOutboxPublisher.builder(producer).router(record -> topic)
                    .topicLookup(broker.admin()).topicCheckExpiry(Duration.ofMillis(200)).build();
            OutboxRecord record = OutboxRecord.builder().aggregateId("a").eventType("OrderPlaced").payload("{}")
                    .build(Clock.systemUTC());

            assertThat(publisher.publish(record).toCompletableFuture()).failsWithin(DEADLINE)
                    .withThrowableOfType(Exception.class).havingCause().isInstanceOfSatisfying(
                            PublishException.class,
                            failure -> assertThat(failure.reason()).isEqualTo(Reason.DESTINATION_NOT_FOUND));

            broker.admin().createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            await().atMost(DEADLINE).ignoreExceptionsInstanceOf(CompletionException.class)
                    .until(() -> publisher.publish(record).toCompletableFuture().join() != null);
        }
        assertThat(broker.readAll(topic, 1)).hasSize(1);
    }

    /** The producer's and the admin client's calls, by topic. */
    private static final class Calls {

        private final ConcurrentMap<String, AtomicInteger> sends = new ConcurrentHashMap<>();
        private final ConcurrentMap<String, AtomicInteger> metadataWaits = new ConcurrentHashMap<>();
        private final ConcurrentMap<String, AtomicInteger> lookups = new ConcurrentHashMap<>();

        @SuppressWarnings("unchecked")
        Producer<String, byte[]> producer(Producer<String, byte[]> producer) {
            return (Producer<String, byte[]>) Proxy.newProxyInstance(Producer.class.getClassLoader(),
                    new Class<?>[] {Producer.class}, (proxy, method, args) -> {
                        if (method.getName().equals("send")) {
                            count(sends, ((ProducerRecord<?, ?>) args[0]).topic());
                        } else if (method.getName().equals("partitionsFor")) {
                            count(metadataWaits, (String) args[0]);
                        }
                        return delegate(producer, method, args);
                    });
        }

        Admin admin(Admin admin) {
            return (Admin) Proxy.newProxyInstance(Admin.class.getClassLoader(), new Class<?>[] {Admin.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("describeTopics")) {
                            count(lookups, String.valueOf(args[0]));
                        }
                        return delegate(admin, method, args);
                    });
        }

        int sends(String topic) {
            return of(sends, topic);
        }

        int metadataWaits(String topic) {
            return of(metadataWaits, topic);
        }

        /** Lookups whose topics include {@code topic}. */
        int lookups(String topic) {
            return lookups.entrySet().stream().filter(entry -> entry.getKey().contains("[" + topic + "]"))
                    .mapToInt(entry -> entry.getValue().get()).sum();
        }

        private static int of(ConcurrentMap<String, AtomicInteger> counts, String topic) {
            AtomicInteger count = counts.get(topic);
            return count == null ? 0 : count.get();
        }

        private static void count(ConcurrentMap<String, AtomicInteger> counts, String key) {
            counts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        }

        private static Object delegate(Object target, java.lang.reflect.Method method, Object[] args)
                throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
