package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.testkit.ConnectionCut;
import dev.outbox.testkit.DeliveryCheck;
import dev.outbox.testkit.PublishingRig;
import dev.outbox.testkit.TcpProxy;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;

/**
 * Every connection between the publisher and RabbitMQ cut for 10 s in the middle of a backlog: nothing is lost, no
 * record fails, processing resumes by itself, and the queue holds the first occurrence of every record in its
 * aggregate's order. Messages the broker took whose confirms the cut swallowed are sent again: those copies are the
 * documented duplicates, and carry their record's id.
 */
class RabbitConnectionCutTest {

    private static final Duration CUT = Duration.ofSeconds(10);
    private static final Duration DEADLINE = Duration.ofSeconds(180);

    @Test
    void aTenSecondCutMidBacklogLosesNothingFailsNothingAndKeepsEveryAggregatesOrder() {
        try (RabbitTestBroker broker = RabbitTestBroker.require();
                TcpProxy proxy = TcpProxy.to(broker.host(), broker.port())) {
            CachingConnectionFactory connection = broker.publisherConnection(proxy.port());
            String exchange = broker.declareExchange("cut");
            String queue = broker.declareQueue(exchange, "#");
            RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(connection)
                    .router(record -> RabbitDestination.of(exchange, "order"))
                    .acknowledgementTimeout(Duration.ofSeconds(5))
                    .build();
            ConnectionCut.Outcome outcome;
            try (PublishingRig rig = PublishingRig.create("rabbitmq", publisher,
                    OutboxRetryPolicy.fixed(Duration.ofMillis(500)).withMaxRetries(1_000))) {
                outcome = ConnectionCut.midBacklog(rig, proxy, 1_000, 10, CUT, DEADLINE);
            } finally {
                connection.destroy();
            }
            System.out.println("RabbitMQ " + outcome);
            outcome.assertRecoveredWithoutFailures();

            DeliveryCheck check = DeliveryCheck.of(outcome.written(),
                    broker.takeAll(queue).stream().map(RabbitTestBroker::consumed).toList());
            System.out.println("RabbitMQ cut: the queue holds " + check);
            assertThat(check.missing()).as("%s", check).isEmpty();
            assertThat(check.unknown()).isEmpty();
            assertThat(check.orderViolations()).isEmpty();
            assertThat(check.copies()).as("copies only of records sent more than once")
                    .isLessThanOrEqualTo((int) outcome.sentMoreThanOnce());
        }
    }
}
