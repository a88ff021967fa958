package dev.outbox.boot.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.boot.testing.InJvmKafkaBroker;
import dev.outbox.jpa.testing.TestDatabase;
import dev.outbox.testkit.TestBrokers;
import io.nats.client.Connection;
import io.nats.client.Nats;
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
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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
 * Issue 29, isolation by destination: an application with the Kafka, RabbitMQ and NATS publishers, where records to a
 * Kafka topic that does not exist are written in the same transaction as deliverable records of every broker. The
 * missing topic's records fail at once from the topic lookup, without a send that waits for the topic's metadata on
 * an engine worker, and every deliverable record is published and completed. The outbox's Kafka producer is counted
 * where the publisher calls it. Topic, exchange, queue and stream have names of this test's own.
 */
class MissingKafkaTopicIsolationTest extends DatabasePerTestClass {

    private static final Duration DEADLINE = Duration.ofSeconds(180);
    private static final int AGGREGATES = 100;
    private static final int RECORDS_PER_BROKER_AND_AGGREGATE = 4;
    private static final int TO_MISSING_TOPIC = 20;

    private final String unique = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final String topic = "isolated-" + unique;
    private final String missingTopic = "missing-" + unique;
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
        try (ConfigurableApplicationContext app = run()) {
            Outbox outbox = app.getBean(Outbox.class);
            new TransactionTemplate(app.getBean(PlatformTransactionManager.class)).executeWithoutResult(status -> {
                for (int n = 1; n <= TO_MISSING_TOPIC; n++) {
                    outbox.schedule(Map.of("n", n), "lost-" + n, "Missing");
                }
                for (int n = 1; n <= RECORDS_PER_BROKER_AND_AGGREGATE; n++) {
                    for (int order = 1; order <= AGGREGATES; order++) {
                        for (String eventType : List.of("KafkaOrder", "RabbitOrder", "NatsOrder")) {
                            outbox.schedule(Map.of("order", order, "n", n), "order-" + order, eventType);
                        }
                    }
                }
            });

            OutboxRecordRepository records = app.getBean(OutboxRecordRepository.class);
            await().dontCatchUncaughtExceptions().atMost(DEADLINE).pollInterval(Duration.ofMillis(200))
                    .until(() -> records.countByStatus(OutboxRecordStatus.NEW) == 0);

            List<OutboxRecord> toMissing = new ArrayList<>();
            List<OutboxRecord> deliverable = new ArrayList<>();
            for (int n = 1; n <= TO_MISSING_TOPIC; n++) {
                toMissing.addAll(records.findByAggregateId("lost-" + n));
            }
            for (int order = 1; order <= AGGREGATES; order++) {
                deliverable.addAll(records.findByAggregateId("order-" + order));
            }
            assertThat(toMissing).hasSize(TO_MISSING_TOPIC).allSatisfy(record -> {
                assertThat(record.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
                assertThat(record.getRetryCount()).isZero();
                assertThat(record.getLastError()).contains("Kafka topic '" + missingTopic + "'")
                        .contains("the topic does not exist");
            });
            assertThat(deliverable).hasSize(3 * AGGREGATES * RECORDS_PER_BROKER_AND_AGGREGATE)
                    .allSatisfy(record -> assertThat(record.getStatus()).as("%s", record)
                            .isEqualTo(OutboxRecordStatus.COMPLETED));
        }

        int perBroker = AGGREGATES * RECORDS_PER_BROKER_AND_AGGREGATE;
        assertThat(kafkaSendsByTopic.get(missingTopic))
                .as("sends to the missing topic that reached the producer, each a wait of max.block.ms").isNull();
        assertThat(kafka.readAll(topic)).hasSize(perBroker);
        assertThat(rabbit.getQueueInfo(queue).getMessageCount()).isEqualTo(perBroker);
        assertThat(nats.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount())
                .isEqualTo(perBroker);
    }

    private ConfigurableApplicationContext run() {
        List<String> settings = new ArrayList<>(dataSourceProperties());
        settings.addAll(List.of(
                "outbox.schema-initialization.enabled=true",
                "outbox.poll-interval=100ms",
                "spring.main.banner-mode=off",
                "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                "outbox.kafka.enabled=true",
                "outbox.kafka.event-types=KafkaOrder,Missing",
                "outbox.kafka.routes.KafkaOrder=" + topic,
                "outbox.kafka.routes.Missing=" + missingTopic,
                "spring.rabbitmq.host=" + rabbitUri.getHost(),
                "spring.rabbitmq.port=" + rabbitUri.getPort(),
                "spring.rabbitmq.publisher-confirm-type=correlated",
                "spring.rabbitmq.publisher-returns=true",
                "outbox.rabbitmq.enabled=true",
                "outbox.rabbitmq.event-types=RabbitOrder",
                "outbox.rabbitmq.routes.RabbitOrder.exchange=" + exchange,
                "outbox.rabbitmq.routes.RabbitOrder.routing-key=order.placed",
                "outbox.nats.enabled=true",
                "outbox.nats.url=" + natsUrl,
                "outbox.nats.event-types=NatsOrder",
                "outbox.nats.routes.NatsOrder=" + stream + ".placed",
                "outbox.nats.expected-stream=" + stream));
        return new SpringApplicationBuilder(PublishingApplication.class).web(WebApplicationType.NONE)
                .properties(settings.toArray(String[]::new))
                .initializers(context -> context.getBeanFactory().addBeanPostProcessor(new CountingKafkaSends()))
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
