package dev.outbox.boot.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.boot.testing.InJvmKafkaBroker;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.testkit.TestBrokers;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.Subscription;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.TopicExchange;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issue 29, isolation by destination, on each broker: an application with the Kafka, RabbitMQ and NATS publishers,
 * where records to a destination that does not exist (a Kafka topic, a RabbitMQ exchange, a NATS subject no stream
 * stores) or one that never acknowledges are written in the same transaction as deliverable records of every broker.
 * The missing destination's records fail as such, and every deliverable record is published and completed within
 * {@link #DELIVERABLE_DEADLINE}, far below an acknowledgement timeout (30 s) or a Kafka {@code max.block.ms} per
 * record. The outbox's Kafka producer is
 * counted where the publisher calls it. Topics, exchanges, queue and stream have names of this test's own.
 */
class MissingDestinationIsolationTest extends DatabasePerTestClass {

    private static final Logger log = LoggerFactory.getLogger(MissingDestinationIsolationTest.class);
    private static final Duration DELIVERABLE_DEADLINE = Duration.ofSeconds(20);
    private static final Duration DEADLINE = Duration.ofSeconds(180);
    private static final int AGGREGATES = 100;
    private static final int RECORDS_PER_BROKER_AND_AGGREGATE = 4;
    private static final int TO_MISSING_DESTINATION = 20;

    private final String unique = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final String topic = "isolated-" + unique;
    private final String missingTopic = "missing-" + unique;
    private final String missingExchange = "missing-" + unique;
    private final String unstoredSubject = "UNSTORED_" + unique.toUpperCase(Locale.ROOT) + ".placed";
    private final String silentSubject = "SILENT_" + unique.toUpperCase(Locale.ROOT) + ".placed";
    private final String exchange = "isolated-" + unique;
    private final String queue = "isolated-all-" + unique;
    private final String stream = "ISOLATED_" + unique.toUpperCase(Locale.ROOT);
    private final ConcurrentMap<String, AtomicInteger> kafkaSendsByTopic = new ConcurrentHashMap<>();
    private InJvmKafkaBroker kafka;
    private URI rabbitUri;
    private CachingConnectionFactory rabbitConnection;
    private RabbitAdmin rabbit;
    private String natsUrl;
    private Connection nats;

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }

    @BeforeAll
    void createDestinations() throws Exception {
        kafka = InJvmKafkaBroker.start(new NewTopic(topic, 3, (short) 1));
        rabbitUri = URI.create(TestBrokers.require("RABBITMQ", "amqp://guest:guest@127.0.0.1:5672"));
        rabbitConnection = new CachingConnectionFactory(rabbitUri);
        rabbit = new RabbitAdmin(rabbitConnection);
        rabbit.declareExchange(new TopicExchange(exchange, false, true));
        rabbit.declareQueue(new Queue(queue, false));
        rabbit.declareBinding(BindingBuilder.bind(new Queue(queue)).to(new TopicExchange(exchange)).with("#"));
        natsUrl = TestBrokers.require("NATS", "nats://127.0.0.1:4222");
        nats = Nats.connect(natsUrl);
        nats.jetStreamManagement().addStream(StreamConfiguration.builder().name(stream).subjects(stream + ".>")
                .storageType(StorageType.Memory).build());
    }

    @AfterAll
    void deleteDestinations() throws Exception {
        try {
            if (nats != null) {
                try {
                    nats.jetStreamManagement().deleteStream(stream);
                } finally {
                    nats.close();
                }
            }
            if (rabbit != null) {
                try {
                    rabbit.deleteQueue(queue);
                    rabbit.deleteExchange(exchange);
                } finally {
                    rabbitConnection.destroy();
                }
            }
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
    }

    @Test
    void recordsToAMissingKafkaTopicFailAtOnceWithoutASendAndHoldBackNoBrokersRecords() throws Exception {
        isolates(List.of("outbox.kafka.event-types=KafkaOrder,Missing",
                        "outbox.kafka.routes.Missing=" + missingTopic),
                failed -> {
                    assertThat(failed.getLastError()).contains("Kafka topic '" + missingTopic + "'")
                            .contains("the topic does not exist");
                    assertThat(failed.getRetryCount()).isZero();
                });

        assertThat(kafkaSendsByTopic.get(missingTopic))
                .as("sends to the missing topic that reached the producer, each a wait of max.block.ms").isNull();
    }

    /**
     * The broker refuses a message to a missing exchange by closing its channel; the publisher's channels are one per
     * exchange (see {@code RabbitOutboxPublisher}), so every message in flight on that channel is to the missing
     * exchange, and each fails at once with the broker's 404.
     */
    @Test
    void recordsToAMissingRabbitExchangeFailAndHoldBackNoBrokersRecords() throws Exception {
        isolates(List.of("outbox.rabbitmq.event-types=RabbitOrder,Missing",
                        "outbox.rabbitmq.routes.Missing.exchange=" + missingExchange),
                failed -> {
                    assertThat(failed.getLastError()).contains("RabbitMQ exchange '" + missingExchange + "'")
                            .contains("NOT_FOUND - no exchange '" + missingExchange + "'");
                    assertThat(failed.getRetryCount()).isZero();
                });
    }

    @Test
    void recordsToANatsSubjectNoStreamStoresFailAndHoldBackNoBrokersRecords() throws Exception {
        isolates(List.of("outbox.nats.event-types=NatsOrder,Missing",
                        "outbox.nats.routes.Missing=" + unstoredSubject),
                failed -> {
                    assertThat(failed.getLastError()).contains("NATS subject '" + unstoredSubject + "'")
                            .contains("no JetStream stream stores this subject");
                    assertThat(failed.getRetryCount()).isZero();
                });
    }

    /**
     * A destination that takes messages and never acknowledges them: a NATS subject no stream stores, which a plain
     * subscriber listens to, so a JetStream publish there gets no answer at all (not "no responders"). The client
     * gives up on an unanswered asynchronous publish after its {@code requestCleanupInterval} (5 to 10 s by default),
     * a minute here, so that the engine's acknowledgement timeout, 30 s, is what ends the wait. The other aggregates'
     * records complete meanwhile, NATS's too, which the same publisher sends in the same batches as the unanswered
     * ones.
     */
    @Test
    void recordsToANatsSubjectThatNeverAcknowledgesHoldBackNoBrokersRecords() throws Exception {
        Subscription silent = nats.subscribe(silentSubject);
        Connection patient = Nats.connect(new Options.Builder().server(natsUrl).connectionName("outbox-patient")
                .requestCleanupInterval(Duration.ofMinutes(1)).build());
        try {
            BrokerCounts before = brokerCounts();
            String run = UUID.randomUUID().toString().substring(0, 8);
            try (ConfigurableApplicationContext app = run(List.of("outbox.nats.event-types=NatsOrder,Missing",
                    "outbox.nats.routes.Missing=" + silentSubject,
                    "outbox.nats.publish-timeout=25s",
                    "outbox.nats.acknowledgement-timeout=30s",
                    "outbox.instance.graceful-shutdown-timeout-seconds=1"), patient)) {
                OutboxRecordRepository records = app.getBean(OutboxRecordRepository.class);
                writeAndAwaitDeliverable(app, run, "a NATS subject that never acknowledges");

                assertThat(toMissing(records, run)).as("sent once, still unanswered").allSatisfy(record -> {
                    assertThat(record.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
                    assertThat(record.getRetryCount()).isZero();
                });
                await().atMost(DEADLINE).until(() -> silent.getPendingMessageCount() == TO_MISSING_DESTINATION);
            }
            assertEachBrokerGot(before, AGGREGATES * RECORDS_PER_BROKER_AND_AGGREGATE);
        } finally {
            patient.close();
            silent.unsubscribe();
        }
    }

    /**
     * Writes records of event type {@code Missing}, which {@code missingRoute} sends to a destination that does not
     * exist, in one transaction with deliverable records of every broker; the former fail and satisfy
     * {@code failedAsMissing}, the latter all complete in time.
     */
    private void isolates(List<String> missingRoute, Consumer<OutboxRecord> failedAsMissing) throws Exception {
        BrokerCounts before = brokerCounts();
        String run = UUID.randomUUID().toString().substring(0, 8);
        try (ConfigurableApplicationContext app = run(missingRoute)) {
            OutboxRecordRepository records = app.getBean(OutboxRecordRepository.class);
            writeAndAwaitDeliverable(app, run, "a missing destination (" + missingRoute + ")");
            await().dontCatchUncaughtExceptions().atMost(DEADLINE).pollInterval(Duration.ofMillis(200))
                    .until(() -> records.countByStatus(OutboxRecordStatus.NEW) == 0);

            assertThat(toMissing(records, run)).allSatisfy(record -> {
                assertThat(record.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
                failedAsMissing.accept(record);
            });
        }
        assertEachBrokerGot(before, AGGREGATES * RECORDS_PER_BROKER_AND_AGGREGATE);
    }

    /**
     * Writes, in one transaction, {@link #TO_MISSING_DESTINATION} records of event type {@code Missing} and the
     * deliverable records of every broker, and waits until the latter are all COMPLETED, within
     * {@link #DELIVERABLE_DEADLINE}.
     */
    private void writeAndAwaitDeliverable(ConfigurableApplicationContext app, String run, String beside) {
        int deliverable = 3 * AGGREGATES * RECORDS_PER_BROKER_AND_AGGREGATE;
        Outbox outbox = app.getBean(Outbox.class);
        OutboxRecordRepository records = app.getBean(OutboxRecordRepository.class);
        long completedBefore = records.countByStatus(OutboxRecordStatus.COMPLETED);
        new TransactionTemplate(app.getBean(PlatformTransactionManager.class)).executeWithoutResult(status -> {
            for (int n = 1; n <= TO_MISSING_DESTINATION; n++) {
                outbox.schedule(Map.of("n", n), "lost-" + run + "-" + n, "Missing");
            }
            for (int n = 1; n <= RECORDS_PER_BROKER_AND_AGGREGATE; n++) {
                for (int order = 1; order <= AGGREGATES; order++) {
                    for (String eventType : List.of("KafkaOrder", "RabbitOrder", "NatsOrder")) {
                        outbox.schedule(Map.of("order", order, "n", n), "order-" + run + "-" + order, eventType);
                    }
                }
            }
        });
        long written = System.nanoTime();
        await().dontCatchUncaughtExceptions().atMost(DEADLINE).pollInterval(Duration.ofMillis(50))
                .until(() -> records.countByStatus(OutboxRecordStatus.COMPLETED) - completedBefore == deliverable);
        Duration took = Duration.ofNanos(System.nanoTime() - written);
        log.info("Issue 29: {} deliverable records of three brokers completed in {} ms beside records to {}",
                deliverable, took.toMillis(), beside);
        assertThat(took).as("deliverable records held back by %s", beside).isLessThan(DELIVERABLE_DEADLINE);
    }

    private static List<OutboxRecord> toMissing(OutboxRecordRepository records, String run) {
        List<OutboxRecord> toMissing = new ArrayList<>();
        for (int n = 1; n <= TO_MISSING_DESTINATION; n++) {
            toMissing.addAll(records.findByAggregateId("lost-" + run + "-" + n));
        }
        assertThat(toMissing).hasSize(TO_MISSING_DESTINATION);
        return toMissing;
    }

    private BrokerCounts brokerCounts() throws Exception {
        return new BrokerCounts(kafka.readAll(topic).size(), rabbit.getQueueInfo(queue).getMessageCount(),
                nats.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount());
    }

    private void assertEachBrokerGot(BrokerCounts before, int more) throws Exception {
        BrokerCounts now = brokerCounts();
        assertThat(now).isEqualTo(new BrokerCounts(before.kafka + more, before.rabbit + more, before.nats + more));
    }

    /** The messages in the deliverable topic, queue and stream at one time. */
    private record BrokerCounts(long kafka, long rabbit, long nats) {
    }

    private ConfigurableApplicationContext run(List<String> missingRoute) {
        return run(missingRoute, null);
    }

    /**
     * The application, with the deliverable routes of every broker, and the given ones on top; on
     * {@code natsConnection} when given, else on a NATS connection of its own.
     */
    private ConfigurableApplicationContext run(List<String> missingRoute, @Nullable Connection natsConnection) {
        List<String> settings = new ArrayList<>(dataSourceProperties());
        settings.addAll(List.of(
                "outbox.schema-initialization.enabled=true",
                "outbox.poll-interval=100ms",
                "spring.main.banner-mode=off",
                "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                "outbox.kafka.enabled=true",
                "outbox.kafka.event-types=KafkaOrder",
                "outbox.kafka.routes.KafkaOrder=" + topic,
                "spring.rabbitmq.host=" + rabbitUri.getHost(),
                "spring.rabbitmq.port=" + rabbitUri.getPort(),
                "outbox.rabbitmq.enabled=true",
                "outbox.rabbitmq.event-types=RabbitOrder",
                "outbox.rabbitmq.routes.RabbitOrder.exchange=" + exchange,
                "outbox.rabbitmq.routes.RabbitOrder.routing-key=order.placed",
                "outbox.nats.enabled=true",
                "outbox.nats.url=" + natsUrl,
                "outbox.nats.event-types=NatsOrder",
                "outbox.nats.routes.NatsOrder=" + stream + ".placed",
                "outbox.nats.expected-stream=" + stream));
        settings.addAll(missingRoute); // later settings win
        return new SpringApplicationBuilder(PublishingApplication.class).web(WebApplicationType.NONE)
                .properties(settings.toArray(String[]::new))
                .initializers(context -> {
                    context.getBeanFactory().addBeanPostProcessor(new CountingKafkaSends());
                    if (natsConnection != null) {
                        context.getBeanFactory().registerSingleton("outboxNatsConnection", natsConnection);
                    }
                })
                .run();
    }

    /** Wraps the outbox's Kafka producer, counting the sends that reach it by topic. */
    private final class CountingKafkaSends implements BeanPostProcessor {

        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            if (!beanName.equals("outboxKafkaProducer")) {
                return bean;
            }
            return Proxy.newProxyInstance(Producer.class.getClassLoader(), new Class<?>[] {Producer.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("send")) {
                            kafkaSendsByTopic.computeIfAbsent(((ProducerRecord<?, ?>) args[0]).topic(),
                                    name -> new AtomicInteger()).incrementAndGet();
                        }
                        try {
                            return method.invoke(bean, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }
}
