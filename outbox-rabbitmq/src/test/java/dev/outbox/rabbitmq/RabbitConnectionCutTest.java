package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.testkit.DeliveryCheck;
import dev.outbox.testkit.PublishingRig;
import dev.outbox.testkit.TcpProxy;
import java.time.Duration;
import java.util.List;
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
    private static final int AGGREGATES = 1_000;
    private static final int RECORDS_PER_AGGREGATE = 20;

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
            int records = AGGREGATES * RECORDS_PER_AGGREGATE;
            List<OutboxRecord> written;
            long completedAtCut;
            long redeliveries;
            try (PublishingRig rig = PublishingRig.create("rabbitmq", publisher,
                    OutboxRetryPolicy.fixed(Duration.ofMillis(500)).withMaxRetries(1_000))) {
                written = rig.write(AGGREGATES, RECORDS_PER_AGGREGATE, "OrderPlaced");
                rig.startProcessing();
                await().atMost(DEADLINE).pollInterval(Duration.ofMillis(10))
                        .until(() -> rig.count(OutboxRecordStatus.COMPLETED) >= records / 10);

                completedAtCut = rig.count(OutboxRecordStatus.COMPLETED);
                proxy.cutFor(CUT);
                await().atMost(DEADLINE).until(() -> !proxy.isCut());
                long completedDuringCut = rig.count(OutboxRecordStatus.COMPLETED) - completedAtCut;
                rig.awaitAllCompleted(DEADLINE);
                written = written.stream().map(rig::stored).toList();
                redeliveries = written.stream().filter(record -> record.getRetryCount() > 0).count();

                System.out.printf("RabbitMQ cut of %s at %d of %d records completed: %d completed during the cut; "
                                + "failed attempts %s; %d records sent more than once; %d connections, %d cut%n",
                        CUT, completedAtCut, records, completedDuringCut, rig.failuresByReason(), redeliveries,
                        proxy.connections(), proxy.cuts());
                assertThat(completedAtCut).as("cut in the middle of the backlog").isLessThan(records);
                assertThat(proxy.cuts()).as("connections cut").isPositive();
                assertThat(rig.count(OutboxRecordStatus.FAILED)).isZero();
                assertThat(rig.failuresByReason()).as("the cut was felt").isNotEmpty();
                assertThat(rig.otherFailures()).isEmpty();
            } finally {
                connection.destroy();
            }

            DeliveryCheck check = DeliveryCheck.of(written,
                    broker.takeAll(queue).stream().map(RabbitTestBroker::consumed).toList());
            System.out.println("RabbitMQ cut: the queue holds " + check);
            assertThat(check.missing()).as("%s", check).isEmpty();
            assertThat(check.unknown()).isEmpty();
            assertThat(check.orderViolations()).isEmpty();
            assertThat(check.copies()).as("copies only of records sent more than once")
                    .isLessThanOrEqualTo((int) redeliveries);
        }
    }
}
