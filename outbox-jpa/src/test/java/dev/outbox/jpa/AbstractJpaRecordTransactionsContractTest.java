package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import dev.outbox.jdbc.AbstractRecordTransactionsContractTest;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.WriteFixture;
import dev.outbox.jpa.testing.JpaOutboxFixture;
import dev.outbox.jpa.testing.Shipment;
import jakarta.persistence.EntityManager;
import java.util.Objects;
import org.springframework.orm.jpa.EntityManagerFactoryUtils;

/**
 * The transactions of transactional handlers with the JpaTransactionManager, the handlers writing entities through
 * the entity manager of its transaction (flushed, so that a rollback has something to undo).
 */
abstract class AbstractJpaRecordTransactionsContractTest extends AbstractRecordTransactionsContractTest {

    @Override
    protected final WriteFixture createFixture(TestDatabase.Kind kind) {
        return JpaOutboxFixture.create(kind, OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES);
    }

    /** Hibernate made the table of {@link Shipment}. */
    @Override
    protected final void createShipmentTable(WriteFixture fixture) {
    }

    @Override
    protected final void writeShipment(WriteFixture fixture, String id, String recordId) {
        EntityManager entityManager = Objects.requireNonNull(EntityManagerFactoryUtils.getTransactionalEntityManager(
                ((JpaOutboxFixture) fixture).entityManagerFactory()), "the transaction's entity manager");
        entityManager.persist(new Shipment(id, recordId));
        entityManager.flush();
    }
}
