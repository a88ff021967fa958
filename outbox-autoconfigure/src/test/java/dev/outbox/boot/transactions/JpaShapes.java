package dev.outbox.boot.transactions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.boot.transactions.ContractApplication.Parcel;
import dev.outbox.boot.transactions.ContractApplication.ParcelCallbacks;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.orm.jpa.SharedEntityManagerCreator;

/** Records written by JPA entity callbacks: at {@code persist}, and during the flush of the commit. */
interface JpaShapes extends ContractParts {

    @BeforeEach
    default void callbacksWriteIntoTheOutboxUnderTest() {
        jdbc().update("DELETE FROM contract_parcel");
        ParcelCallbacks.outbox = outbox();
    }

    @AfterEach
    default void callbacksWriteNothing() {
        ParcelCallbacks.outbox = null;
    }

    @Test
    default void aPrePersistCallbackWritesTheRecordWithTheEntity() {
        transaction().executeWithoutResult(status -> {
            orders().insert("order-1");
            entityManager().persist(new Parcel("parcel-1", true));
        });

        assertCommitted(List.of("order-1"), List.of("parcel-1"));
        assertParcels(List.of("parcel-1"));
    }

    @Test
    default void aPrePersistCallbackOfATransactionThatRollsBackWritesNothing() {
        transaction().executeWithoutResult(status -> {
            orders().insert("order-1");
            entityManager().persist(new Parcel("parcel-1", true));
            status.setRollbackOnly();
        });

        assertCommitted(List.of(), List.of());
        assertParcels(List.of());
    }

    @Test
    default void aPostPersistCallbackDuringTheCommitsFlushWritesTheOnlyRecord() {
        transaction().executeWithoutResult(status -> {
            orders().insert("order-1");
            entityManager().persist(new Parcel("parcel-1", false));
        });

        assertCommitted(List.of("order-1"), List.of("parcel-1"));
        assertParcels(List.of("parcel-1"));
    }

    @Test
    default void aPostPersistCallbackDuringTheCommitsFlushWritesAfterADirectRecord() {
        transaction().executeWithoutResult(status -> {
            orders().insert("order-1");
            record("order-1");
            entityManager().persist(new Parcel("parcel-1", false));
        });

        assertCommitted(List.of("order-1"), List.of("order-1", "parcel-1"));
        assertParcels(List.of("parcel-1"));
    }

    private EntityManager entityManager() {
        return SharedEntityManagerCreator.createSharedEntityManager(app().getBean(EntityManagerFactory.class));
    }

    private void assertParcels(List<String> ids) {
        assertThat(
                jdbc().queryForList("SELECT id FROM contract_parcel ORDER BY id", String.class)).isEqualTo(ids);
    }
}
