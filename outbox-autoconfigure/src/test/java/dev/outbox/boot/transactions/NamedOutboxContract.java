package dev.outbox.boot.transactions;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.boot.NamedOutboxes;
import java.util.List;

/**
 * A named outbox on the application's DataSource with no {@code transaction-manager} of its own, as
 * docs/several-databases.md shows, written in the transactions of the application's {@code JpaTransactionManager}.
 */
abstract class NamedOutboxContract extends AbstractTransactionContractTest implements JpaShapes {

    @Override
    protected List<String> writePathProperties() {
        return List.of(
                "outbox.outboxes.billing.data-source=dataSource",
                "outbox.outboxes.billing.table-prefix=billing_",
                "outbox.outboxes.billing.schema-initialization.enabled=true");
    }

    @Override
    public Outbox outbox() {
        return app().getBean(NamedOutboxes.class).outbox("billing");
    }

    @Override
    protected OutboxRecordRepository repository() {
        return app().getBean(NamedOutboxes.class).get("billing").repository();
    }

    @Override
    protected String recordTable() {
        return "billing_record";
    }
}
