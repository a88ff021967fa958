package dev.outbox.boot.transactions;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecordRepository;

/** The contract on the default outbox ({@code outbox.*}, the {@link Outbox} bean). */
abstract class DefaultOutboxContract extends AbstractTransactionContractTest implements EventShapes {

    @Override
    public Outbox outbox() {
        return app().getBean(Outbox.class);
    }

    @Override
    protected OutboxRecordRepository repository() {
        return app().getBean(OutboxRecordRepository.class);
    }

    @Override
    protected String recordTable() {
        return "outbox_record";
    }
}
