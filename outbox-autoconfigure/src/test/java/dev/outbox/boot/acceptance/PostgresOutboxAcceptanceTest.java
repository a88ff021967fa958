package dev.outbox.boot.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.jdbc.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

class PostgresOutboxAcceptanceTest extends AbstractOutboxAcceptanceTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }

    @Test
    void recordsCommittedByAnotherInstanceWakeTheOwnerThroughListenNotify() {
        start(null, "outbox.poll-interval=1h", "outbox.instance.id=owner");
        ConfigurableApplicationContext writer = start(null, "outbox.processing.enabled=false");
        TestOrderService service = writer.getBean(TestOrderService.class);

        // The owner polls once an hour: once the first record is handled, only a notification from the writer's
        // commit can bring the second one within the deadline.
        service.placeOrder("order-first", 1);
        await().atMost(DEADLINE).until(() -> recordingProcessor().handled().size() == 1);
        service.placeOrder("order-second", 2);
        await().atMost(DEADLINE).until(() -> recordingProcessor().handled().size() == 2);

        assertThat(recordingProcessor().handled()).extracting(OutboxRecord::getAggregateId)
                .containsExactly("order-first", "order-second");
    }
}
