package dev.outbox.boot.transactions;

import dev.outbox.Outbox;
import dev.outbox.boot.transactions.ContractApplication.Orders;
import dev.outbox.jdbc.testing.TestDatabase;
import java.util.List;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/** What the shapes of {@link EventShapes} and {@link JpaShapes} use of {@link AbstractTransactionContractTest}. */
interface ContractParts {

    ConfigurableApplicationContext app();

    Outbox outbox();

    TransactionTemplate transaction();

    Orders orders();

    /** A record of the outbox under test for {@code aggregateId}. */
    void record(String aggregateId);

    /** A second database of the same kind, with a table {@code other_order}. */
    TestDatabase otherDatabase();

    /** The business rows and the records' aggregate ids in the database, each sorted. */
    void assertCommitted(List<String> orders, List<String> records);

    JdbcTemplate jdbc();
}
