package dev.outbox.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.internal.repository.ForwardingRecordRepository;
import dev.outbox.testing.InMemoryRecordStore;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** The listener without Spring's context: the transaction is only flagged; the starter's tests use real ones. */
class OutboxEventListenerTest {

    @OutboxEvent(aggregateId = "orderId")
    record OrderPlaced(String orderId) {
    }

    private static final String TYPE_OF_256_CHARACTERS = "TypeTooLong-----------------------------------------------"
            + "------------------------------------------------------------------------------------------------"
            + "------------------------------------------------------------------------------------------------"
            + "------";

    @OutboxEvent(aggregateId = "orderId", eventType = TYPE_OF_256_CHARACTERS)
    record TypeTooLong(String orderId) {
    }

    @OutboxEvent(aggregateId = "source")
    static final class LegacyEvent extends ApplicationEvent {
        LegacyEvent(Object source) {
            super(source);
        }
    }

    private final InMemoryRecordStore records = new InMemoryRecordStore();
    private final Outbox outbox = Outbox.builder().repository(records).serializer(String::valueOf).build();
    private final OutboxEventListener listener = new OutboxEventListener(outbox,
            EventMappings.create(getClass().getClassLoader()), OutsideTransaction.FAIL, null);

    @AfterEach
    void endTransaction() {
        TransactionSynchronizationManager.setActualTransactionActive(false);
    }

    @Test
    void anEventForTheOutboxIsWrittenInTheTransaction() {
        TransactionSynchronizationManager.setActualTransactionActive(true);
        listener.onApplicationEvent(new PayloadApplicationEvent<>(this, new OrderPlaced("order-1")));
        listener.onApplicationEvent(new PayloadApplicationEvent<>(this, "not for the outbox"));

        List<OutboxRecord> written = records.findByStatus(OutboxRecordStatus.NEW, 10);
        assertThat(written).singleElement().satisfies(record -> {
            assertThat(record.getAggregateId()).isEqualTo("order-1");
            assertThat(record.getEventType()).isEqualTo("OrderPlaced");
            assertThat(record.getPayload()).isEqualTo("OrderPlaced[orderId=order-1]");
        });
    }

    @Test
    void outsideATransactionThePublisherGetsAnErrorAndNothingIsWritten() {
        assertThatThrownBy(() -> listener.onApplicationEvent(
                new PayloadApplicationEvent<>(this, new OrderPlaced("order-1"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(OrderPlaced.class.getName() + " was published outside a transaction")
                .hasMessageContaining("outbox.events.outside-transaction=own-transaction");
        assertThat(records.countByStatus(OutboxRecordStatus.NEW)).isZero();
    }

    @Test
    void aTransactionThatIsNotOnTheOutboxsDatabaseIsRefusedAndNothingIsWritten() {
        OutboxRecordRepository elsewhere = new ForwardingRecordRepository(records) {
            @Override
            public OutboxRecord save(OutboxRecord record) {
                return delegate.save(record);
            }

            @Override
            public boolean isTransactionActive() {
                return false;
            }
        };
        OutboxEventListener onAnotherDatabase = new OutboxEventListener(
                Outbox.builder().repository(elsewhere).serializer(String::valueOf).build(),
                EventMappings.create(getClass().getClassLoader()), OutsideTransaction.FAIL, null);
        TransactionSynchronizationManager.setActualTransactionActive(true);

        assertThatThrownBy(() -> onAnotherDatabase.onApplicationEvent(
                new PayloadApplicationEvent<>(this, new OrderPlaced("order-1"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(OrderPlaced.class.getName() + " was published in a transaction that is not "
                        + "on the outbox's DataSource");
        assertThat(records.countByStatus(OutboxRecordStatus.NEW)).isZero();
    }

    @Test
    void aRecordTheOutboxRefusesNamesTheEventClassAndNothingIsWritten() {
        TransactionSynchronizationManager.setActualTransactionActive(true);
        assertThatThrownBy(() -> listener.onApplicationEvent(
                new PayloadApplicationEvent<>(this, new TypeTooLong("order-1"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(TypeTooLong.class.getName() + " (@OutboxEvent(aggregateId = \"orderId\")): ")
                .hasMessageContaining("eventType");
        assertThat(records.countByStatus(OutboxRecordStatus.NEW)).isZero();
    }

    @Test
    void anApplicationEventSubclassMarkedForTheOutboxIsRefused() {
        TransactionSynchronizationManager.setActualTransactionActive(true);
        assertThatThrownBy(() -> listener.onApplicationEvent(new LegacyEvent(this)))
                .hasMessageContaining("extends ApplicationEvent");
    }

    @Test
    void theListenerNeverRunsOnTheMulticastersExecutor() {
        assertThat(listener.supportsAsyncExecution()).isFalse();
        assertThatThrownBy(() -> new OutboxEventListener(outbox, EventMappings.create(null),
                OutsideTransaction.OWN_TRANSACTION, null))
                .hasMessageContaining("transactionManager is required");
    }
}
