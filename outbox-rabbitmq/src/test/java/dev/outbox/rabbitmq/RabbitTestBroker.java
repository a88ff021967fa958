package dev.outbox.rabbitmq;

import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.testkit.DeliveryCheck.Consumed;
import dev.outbox.testkit.TestBrokers;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.TopicExchange;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * The RabbitMQ server of a test class, found as the database tests find theirs (see {@link TestBrokers}), and the
 * exchanges and queues it declares, each with a unique name, deleted by {@link #close()}.
 */
final class RabbitTestBroker implements AutoCloseable {

    private final URI uri;
    private final CachingConnectionFactory adminConnection;
    private final RabbitAdmin admin;
    private final RabbitTemplate reader;
    private final List<String> exchanges = new ArrayList<>();
    private final List<String> queues = new ArrayList<>();
    private final List<String> users = new ArrayList<>();

    private RabbitTestBroker(URI uri) {
        this.uri = uri;
        this.adminConnection = new CachingConnectionFactory(uri);
        this.admin = new RabbitAdmin(adminConnection);
        this.reader = new RabbitTemplate(adminConnection);
    }

    static RabbitTestBroker require() {
        return new RabbitTestBroker(URI.create(TestBrokers.require("RABBITMQ", "amqp://guest:guest@127.0.0.1:5672")));
    }

    String host() {
        return uri.getHost();
    }

    int port() {
        return uri.getPort();
    }

    /**
     * A connection factory as Spring Boot makes one by default, to {@code port} if given: without Spring AMQP's
     * publisher confirms and returns, which the publisher does not need (its channels are its own).
     */
    CachingConnectionFactory publisherConnection(int port) {
        CachingConnectionFactory factory = new CachingConnectionFactory(uri);
        factory.setPort(port);
        factory.setConnectionNameStrategy(connectionFactory -> "outbox-rabbitmq-test");
        return factory;
    }

    CachingConnectionFactory publisherConnection() {
        return publisherConnection(port());
    }

    /**
     * A publisher connection of a user of this test's own, who may write to {@code exchange} only, and read and
     * configure nothing, in the broker's virtual host. AMQP cannot manage users: this runs {@code rabbitmqctl}, the
     * broker's own tool ({@code OUTBOX_TEST_RABBITMQCTL} names another command), which needs the broker to run on this
     * machine; without it the test is skipped, or fails when brokers are required.
     */
    CachingConnectionFactory publisherConnectionWritingOnlyTo(String exchange) {
        String user = unique("outbox-test-user");
        String password = UUID.randomUUID().toString();
        rabbitmqctl("add_user", user, password);
        users.add(user);
        rabbitmqctl("set_permissions", "-p", virtualHost(), user, "^$", "^" + exchange + "$", "^$");
        CachingConnectionFactory factory = publisherConnection();
        factory.setUsername(user);
        factory.setPassword(password);
        return factory;
    }

    private String virtualHost() {
        String path = uri.getPath();
        return path == null || path.isEmpty() || path.equals("/") ? "/" : path.substring(1);
    }

    private static void rabbitmqctl(String... arguments) {
        String tool = Objects.requireNonNullElse(System.getenv("OUTBOX_TEST_RABBITMQCTL"), "rabbitmqctl");
        List<String> command = new ArrayList<>(List.of(tool, "-q"));
        command.addAll(List.of(arguments));
        String output;
        int exit;
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(command + " did not finish within 60 s");
            }
            exit = process.exitValue();
        } catch (IOException e) {
            throw TestBrokers.unavailable("cannot run " + tool + " to manage RabbitMQ users", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        }
        if (exit != 0) {
            throw TestBrokers.unavailable(command.get(0) + " " + arguments[0] + " exited with " + exit + ": " + output,
                    new IllegalStateException(output));
        }
    }

    /** A name of this test's own: {@code prefix-<unique>}. */
    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    /** A topic exchange of this test's own; returns its name. */
    String declareExchange(String prefix) {
        String name = unique(prefix);
        admin.declareExchange(new TopicExchange(name, true, false));
        exchanges.add(name);
        return name;
    }

    /** A topic exchange named {@code name}, which the test made unique (deleted by {@link #close()}). */
    void declareExchangeNamed(String name) {
        admin.declareExchange(new TopicExchange(name, true, false));
        exchanges.add(name);
    }

    /** A durable queue of this test's own, bound to {@code exchange} with {@code bindingKey}; returns its name. */
    String declareQueue(String exchange, String bindingKey, Map<String, Object> arguments) {
        String name = unique("queue");
        admin.declareQueue(new Queue(name, true, false, false, arguments));
        queues.add(name);
        admin.declareBinding(BindingBuilder.bind(new Queue(name)).to(new TopicExchange(exchange)).with(bindingKey));
        return name;
    }

    String declareQueue(String exchange, String bindingKey) {
        return declareQueue(exchange, bindingKey, Map.of());
    }

    /** Takes the next message of the queue, or null when it is empty. */
    Message take(String queue) {
        return reader.receive(queue);
    }

    /** Takes every message of the queue, in queue order. */
    List<Message> takeAll(String queue) {
        List<Message> messages = new ArrayList<>();
        for (Message message = take(queue); message != null; message = take(queue)) {
            messages.add(message);
        }
        return messages;
    }

    static Consumed consumed(Message message) {
        Map<String, Object> headers = message.getMessageProperties().getHeaders();
        return new Consumed(String.valueOf(headers.get(OutboxMessageHeaders.RECORD_ID)),
                String.valueOf(headers.get(OutboxMessageHeaders.AGGREGATE_ID)),
                Long.parseLong(String.valueOf(headers.get(OutboxMessageHeaders.SEQUENCE))));
    }

    @Override
    public void close() {
        try {
            queues.forEach(admin::deleteQueue);
            exchanges.forEach(admin::deleteExchange);
            users.forEach(user -> rabbitmqctl("delete_user", user));
        } finally {
            adminConnection.destroy();
        }
    }
}
