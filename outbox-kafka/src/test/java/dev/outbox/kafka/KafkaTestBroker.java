package dev.outbox.kafka;

import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.testkit.DeliveryCheck.Consumed;
import dev.outbox.testkit.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A single-node KRaft Kafka cluster in this JVM (Spring Kafka's test broker): no Kafka server needs to be installed.
 * Topics are created explicitly, each with a unique name; the broker creates none by itself.
 */
final class KafkaTestBroker implements AutoCloseable {

    private final EmbeddedKafkaKraftBroker broker;
    private final Admin admin;

    private final @Nullable TcpProxy proxy;

    private KafkaTestBroker(boolean behindProxy, boolean authorizer) {
        broker = new EmbeddedKafkaKraftBroker(1, 1);
        broker.brokerProperty("auto.create.topics.enable", "false");
        if (authorizer) {
            // every client is User:ANONYMOUS here: it may do everything on a resource without ACLs, and only what the
            // ACLs of a resource allow once it has some
            broker.brokerProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            broker.brokerProperty("allow.everyone.if.no.acl.found", "true");
        }
        if (behindProxy) {
            // the broker tells clients to connect to the proxy: every connection after the bootstrap goes through it
            proxy = TcpProxy.to("127.0.0.1", () -> broker.getCluster().brokers().values().iterator().next()
                    .boundPort(new ListenerName("EXTERNAL")));
            broker.brokerProperty("advertised.listeners", "EXTERNAL://127.0.0.1:" + proxy.port());
        } else {
            proxy = null;
        }
        broker.afterPropertiesSet();
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
    }

    static KafkaTestBroker start() {
        return new KafkaTestBroker(false, false);
    }

    /** A broker that enforces ACLs: see {@link #onlyDescribeAllowed(String)}. */
    static KafkaTestBroker startWithAuthorizer() {
        return new KafkaTestBroker(false, true);
    }

    /** A broker that clients reach only through a {@link TcpProxy}, for connection cuts. */
    static KafkaTestBroker startBehindProxy() {
        return new KafkaTestBroker(true, false);
    }

    /** An ACL on {@code topic} that lets every client describe it and nothing else: writes are refused. */
    void onlyDescribeAllowed(String topic) {
        AclBinding describe = new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                new AccessControlEntry("User:ANONYMOUS", "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW));
        try {
            admin.createAcls(List.of(describe)).all().get();
        } catch (Exception e) {
            throw new IllegalStateException("cannot create the ACL of topic " + topic, e);
        }
    }

    TcpProxy proxy() {
        return Objects.requireNonNull(proxy, "started without a proxy");
    }

    String bootstrapServers() {
        return broker.getBrokersAsString();
    }

    Admin admin() {
        return admin;
    }

    /** A producer as the outbox creates it, with {@code settings} on top. */
    Producer<String, byte[]> producer(Map<String, Object> settings) {
        Map<String, Object> all = new java.util.HashMap<>(settings);
        all.putIfAbsent(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return OutboxKafkaProducers.create(all);
    }

    /** A topic named {@code prefix-<unique>} with {@code partitions} partitions and {@code config}. */
    String createTopic(String prefix, int partitions, Map<String, String> config) {
        String name = prefix + "-" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(config))).all().get();
        } catch (Exception e) {
            throw new IllegalStateException("cannot create topic " + name, e);
        }
        return name;
    }

    /** Every message of the topic, reading until {@code expected} arrived or nothing came for a few seconds. */
    List<ConsumerRecord<String, byte[]>> readAll(String topic, int expected) {
        List<ConsumerRecord<String, byte[]>> messages = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            int emptyPolls = 0;
            while (messages.size() < expected || emptyPolls < 2) {
                var batch = consumer.poll(Duration.ofMillis(500));
                emptyPolls = batch.isEmpty() ? emptyPolls + 1 : 0;
                batch.forEach(messages::add);
                if (emptyPolls >= 10) {
                    break;
                }
            }
        }
        return messages;
    }

    /** How many messages the topic holds, from its end offsets: no read permission needed, only describe. */
    long messageCount(String topic) {
        try {
            Map<TopicPartition, OffsetSpec> ends = admin.describeTopics(List.of(topic)).allTopicNames().get()
                    .get(topic).partitions().stream().collect(Collectors.toMap(
                            info -> new TopicPartition(topic, info.partition()), info -> OffsetSpec.latest()));
            return admin.listOffsets(ends).all().get().values().stream()
                    .mapToLong(ListOffsetsResult.ListOffsetsResultInfo::offset).sum();
        } catch (Exception e) {
            throw new IllegalStateException("cannot count the messages of topic " + topic, e);
        }
    }

    static String header(ConsumerRecord<String, byte[]> message, String name) {
        var header = message.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    static Consumed consumed(ConsumerRecord<String, byte[]> message) {
        return new Consumed(header(message, OutboxMessageHeaders.RECORD_ID), message.key(),
                Long.parseLong(header(message, OutboxMessageHeaders.SEQUENCE)));
    }

    @Override
    public void close() {
        try {
            admin.close();
        } finally {
            broker.destroy();
            if (proxy != null) {
                proxy.close();
            }
        }
    }
}
