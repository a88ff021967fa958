package dev.outbox.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Whether a Spring-managed transaction is bound to a {@link DataSource}, whichever transaction manager began it: what
 * every write of the outbox that joins a transaction checks first.
 */
final class BoundTransactions {

    private BoundTransactions() {
    }

    /**
     * Whether the current thread's transaction holds a connection of {@code dataSource} in a transaction, so that a
     * statement on that DataSource now commits or rolls back with it.
     */
    static boolean isOpen(DataSource dataSource) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return false;
        }
        // A DataSourceTransactionManager, or a JpaTransactionManager over this DataSource, binds its connection here.
        // A connection bound without a transaction of its own (one fetched while another resource's transaction
        // runs) is in auto-commit mode.
        if (!(TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder)
                || holder.getConnectionHandle() == null) {
            return false;
        }
        Connection connection = holder.getConnection();
        try {
            return !connection.getAutoCommit();
        } catch (SQLException e) {
            throw new CannotGetJdbcConnectionException("Outbox: cannot tell whether the connection bound to the "
                    + "DataSource is in a transaction", e);
        }
    }
}
