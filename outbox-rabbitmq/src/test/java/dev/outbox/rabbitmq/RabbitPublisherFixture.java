package dev.outbox.rabbitmq;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;

/**
 * What the publisher test classes share: the class's {@link RabbitTestBroker} (its exchanges and queues, deleted after
 * its tests) and one publisher connection to it, opened before the class's tests and closed after them.
 */
abstract class RabbitPublisherFixture {

    static RabbitTestBroker broker;
    static CachingConnectionFactory connection;

    @BeforeAll
    static void connect() {
        broker = RabbitTestBroker.require();
        connection = broker.publisherConnection();
    }

    /** Forgets what it closed: the next class's {@code connect()} may be skipped, and then nothing is closed twice. */
    @AfterAll
    static void close() {
        if (connection != null) {
            connection.destroy();
            connection = null;
        }
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }
}
