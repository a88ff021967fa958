package dev.outbox.events;

import dev.outbox.Outbox;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.core.Ordered;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Writes every application event for the outbox (see {@link EventMappings}) as an outbox record, in the publisher's
 * transaction: the listener runs in the thread of {@code publishEvent}, so the record commits or rolls back with the
 * business change. That transaction must be one of the outbox's DataSource ({@link Outbox#isTransactionActive()}):
 * an event published outside it, with no transaction or only another resource's open, is refused or written in a
 * transaction of its own, as {@link OutsideTransaction} says. Other listeners still receive the event. It always runs synchronously, also when the application
 * event multicaster has an executor.
 */
public final class OutboxEventListener implements ApplicationListener<ApplicationEvent>, Ordered {

    private final Outbox outbox;
    private final EventMappings mappings;
    private final OutsideTransaction outsideTransaction;
    private final @Nullable TransactionTemplate ownTransaction;

    /**
     * @param transactionManager the transaction manager of the outbox's DataSource, for the transaction of its own
     *     when {@code outsideTransaction} is {@link OutsideTransaction#OWN_TRANSACTION}; unused otherwise
     */
    public OutboxEventListener(Outbox outbox, EventMappings mappings, OutsideTransaction outsideTransaction,
            @Nullable PlatformTransactionManager transactionManager) {
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.mappings = Objects.requireNonNull(mappings, "mappings");
        this.outsideTransaction = Objects.requireNonNull(outsideTransaction, "outsideTransaction");
        if (outsideTransaction == OutsideTransaction.OWN_TRANSACTION) {
            // a new one also when another resource's transaction is open, which the record must not wait for
            this.ownTransaction = new TransactionTemplate(Objects.requireNonNull(transactionManager,
                    "transactionManager is required for OutsideTransaction.OWN_TRANSACTION"));
            this.ownTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        } else {
            this.ownTransaction = null;
        }
    }

    @Override
    public void onApplicationEvent(ApplicationEvent applicationEvent) {
        if (!(applicationEvent instanceof PayloadApplicationEvent<?> payloadEvent)) {
            if (mappings.forClass(applicationEvent.getClass()).isPresent()) {
                throw new IllegalArgumentException(applicationEvent.getClass().getName() + " is marked for the "
                        + "outbox but extends ApplicationEvent, whose source is a live object: publish a plain "
                        + "object (a record, say) instead");
            }
            return;
        }
        Object event = payloadEvent.getPayload();
        Optional<EventMapping> mapping = mappings.forClass(event.getClass());
        if (mapping.isEmpty()) {
            return;
        }
        if (TransactionSynchronizationManager.isActualTransactionActive() && outbox.isTransactionActive()) {
            write(event, mapping.get());
        } else if (ownTransaction != null) {
            ownTransaction.executeWithoutResult(status -> write(event, mapping.get()));
        } else if (TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException(event.getClass().getName() + " was published in a transaction that is "
                    + "not on the outbox's DataSource (another database's, say), so its outbox record could not commit "
                    + "with that transaction's change: publish it in a transaction of the outbox's DataSource, or set "
                    + "outbox.events.outside-transaction=own-transaction to write it in one of its own");
        } else {
            throw new IllegalStateException(event.getClass().getName() + " was published outside a transaction, so "
                    + "its outbox record could not commit with a business change: publish it inside a transaction "
                    + "(@Transactional), or set outbox.events.outside-transaction=own-transaction to write it in "
                    + "one of its own");
        }
    }

    private void write(Object event, EventMapping mapping) {
        String aggregateId = mapping.aggregateIdOf(event);
        try {
            if (mapping.eventType() == null) {
                outbox.schedule(event, aggregateId);
            } else {
                outbox.schedule(event, aggregateId, mapping.eventType());
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(event.getClass().getName() + " (" + mapping.source() + "): "
                    + e.getMessage(), e);
        }
    }

    /** Never on the multicaster's executor: the record must be written in the publisher's transaction. */
    @Override
    public boolean supportsAsyncExecution() {
        return false;
    }

    /** Before the application's own listeners, so that a refused event fails before any of them ran. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public String toString() {
        return "OutboxEventListener{outsideTransaction=" + outsideTransaction + "}";
    }
}
