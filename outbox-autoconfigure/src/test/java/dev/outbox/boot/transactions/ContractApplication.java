package dev.outbox.boot.transactions;

import dev.outbox.Outbox;
import dev.outbox.events.OutboxEvent;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.PostPersist;
import jakarta.persistence.PrePersist;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * The application of the transaction contract: a business table written with {@link JdbcClient}, a service with
 * {@code @Transactional} methods, transactional event listeners that write records while the transaction commits or
 * after it did, and (with JPA) an entity whose callbacks write records. The outbox a shape writes to travels with the
 * call, so the same application serves the default outbox and a named one.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ContractApplication {

    @Bean
    Orders orders(JdbcClient jdbc) {
        return new Orders(jdbc);
    }

    @Bean
    OrderService orderService(Orders orders) {
        return new OrderService(orders);
    }

    @Bean
    CommitListeners commitListeners() {
        return new CommitListeners();
    }

    /** The business change: a row of {@code contract_order}, on the application's DataSource. */
    static final class Orders {

        private final JdbcClient jdbc;

        Orders(JdbcClient jdbc) {
            this.jdbc = jdbc;
        }

        void insert(String id) {
            jdbc.sql("INSERT INTO contract_order (id) VALUES (?)").param(id).update();
        }
    }

    /** A service as applications write them: the business change and its record in one {@code @Transactional}. */
    static class OrderService {

        private final Orders orders;

        OrderService(Orders orders) {
            this.orders = orders;
        }

        @Transactional
        public void place(Outbox outbox, String id, boolean fail) {
            orders.insert(id);
            outbox.schedule("placed", id, "OrderPlaced");
            if (fail) {
                throw new IllegalStateException("business rule violated");
            }
        }
    }

    /** Asks the listeners below to write a record for {@code aggregateId} into {@code outbox}. */
    record WriteOnCommit(Outbox outbox, String aggregateId) {
    }

    /** Asks the listeners below to write a record after the commit, in a transaction of their own. */
    record WriteAfterCommit(Outbox outbox, String aggregateId) {
    }

    static class CommitListeners {

        @TransactionalEventListener(phase = TransactionPhase.BEFORE_COMMIT)
        public void beforeCommit(WriteOnCommit request) {
            request.outbox().schedule("before commit", request.aggregateId(), "WrittenBeforeCommit");
        }

        @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT)
        @Transactional(propagation = Propagation.REQUIRES_NEW)
        public void afterCommit(WriteAfterCommit request) {
            request.outbox().schedule("after commit", request.aggregateId(), "WrittenAfterCommit");
        }
    }

    /** An application event for the default outbox, written by the outbox's event listener. */
    @OutboxEvent(aggregateId = "orderId")
    record OrderNoted(String orderId) {
    }

    /** An entity whose JPA callbacks write records into {@link ParcelCallbacks#outbox}, when one is set. */
    @Entity(name = "ContractParcel")
    @EntityListeners(ParcelCallbacks.class)
    static class Parcel {

        @Id
        private String id;

        private boolean announceOnPersist;

        protected Parcel() {
            this.id = "";
        }

        Parcel(String id, boolean announceOnPersist) {
            this.id = id;
            this.announceOnPersist = announceOnPersist;
        }

        String id() {
            return id;
        }
    }

    /**
     * {@code @PrePersist} runs at {@code persist}, in the transaction's work; {@code @PostPersist} of an entity with an
     * assigned id runs when Hibernate inserts it, which for an entity persisted last is the flush of the commit.
     */
    static class ParcelCallbacks {

        static volatile @Nullable Outbox outbox;

        @PrePersist
        void prePersist(Parcel parcel) {
            Outbox target = outbox;
            if (target != null && parcel.announceOnPersist) {
                target.schedule("persisting", parcel.id(), "ParcelPersisting");
            }
        }

        @PostPersist
        void postPersist(Parcel parcel) {
            Outbox target = outbox;
            if (target != null && !parcel.announceOnPersist) {
                target.schedule("persisted", parcel.id(), "ParcelPersisted");
            }
        }
    }
}
