package dev.outbox.boot.transactions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.boot.transactions.ContractApplication.OrderNoted;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The shapes of {@code @OutboxEvent}s published with {@code publishEvent}, which the event listener writes into the
 * default outbox with the default {@code outbox.events.outside-transaction=fail}.
 */
interface EventShapes extends ContractParts {

    @Test
    default void anEventPublishedInTheTransactionCommitsWithIt() {
        transaction().executeWithoutResult(status -> {
            orders().insert("order-1");
            app().publishEvent(new OrderNoted("order-1"));
        });

        assertCommitted(List.of("order-1"), List.of("order-1"));
    }

    @Test
    default void anEventPublishedInATransactionThatRollsBackIsNotWritten() {
        transaction().executeWithoutResult(status -> {
            orders().insert("order-1");
            app().publishEvent(new OrderNoted("order-1"));
            status.setRollbackOnly();
        });

        assertCommitted(List.of(), List.of());
    }

    @Test
    default void anEventPublishedInAnotherDatabasesTransactionOnlyIsRefused() {
        TransactionTemplate otherTransaction = new TransactionTemplate(
                new DataSourceTransactionManager(otherDatabase().dataSource()));
        JdbcClient other = JdbcClient.create(otherDatabase().dataSource());

        assertThatThrownBy(() -> otherTransaction.executeWithoutResult(status -> {
            other.sql("INSERT INTO other_order (id) VALUES ('order-1')").update();
            app().publishEvent(new OrderNoted("order-1"));
        })).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(OrderNoted.class.getName() + " was published in a transaction that is not on "
                        + "the outbox's DataSource");

        assertThat(other.sql("SELECT COUNT(*) FROM other_order").query(Long.class).single()).isZero();
        assertCommitted(List.of(), List.of());
    }

    @Test
    default void anEventPublishedOutsideATransactionIsRefused() {
        assertThatThrownBy(() -> app().publishEvent(new OrderNoted("order-1")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(OrderNoted.class.getName() + " was published outside a transaction");

        assertCommitted(List.of(), List.of());
    }
}
