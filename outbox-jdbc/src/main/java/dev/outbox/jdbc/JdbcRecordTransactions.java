package dev.outbox.jdbc;

import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.spi.RecordTransactions;
import dev.outbox.spi.TransactionNotBegunException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link RecordTransactions} through the transaction manager of the outbox's {@link DataSource}: each work runs in a
 * new transaction of it ({@code PROPAGATION_REQUIRES_NEW}), in which the {@link JdbcRecordStore}'s writes on that
 * DataSource join the work's. Runs no work in a transaction that is not bound to the DataSource: a completion could
 * then commit without the handler's writes.
 */
final class JdbcRecordTransactions implements RecordTransactions {

    private final DataSource dataSource;
    private final TransactionTemplate transactions;
    /** The statement that limits how long the session may idle in the transaction, with its argument; or null. */
    private final @Nullable String idleLimitStatement;
    private final @Nullable String idleLimitMillis;
    private final JdbcTemplate jdbc;

    /**
     * @param idleLimit how long a session may stay idle inside one of these transactions before the server ends it,
     *     where the database can say so ({@code recordTransaction.idleLimit}: PostgreSQL); null for no limit
     */
    JdbcRecordTransactions(DataSource dataSource, SqlStatements sql, PlatformTransactionManager transactionManager,
            @Nullable Duration idleLimit) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.transactions = new TransactionTemplate(Objects.requireNonNull(transactionManager, "transactionManager"));
        this.idleLimitStatement = idleLimit == null ? null : sql.find("recordTransaction.idleLimit").orElse(null);
        this.idleLimitMillis = idleLimit == null ? null : Long.toString(Math.max(1, idleLimit.toMillis()));
        this.jdbc = new JdbcTemplate(dataSource);
        transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        if (sql.dialect().writesLockWhatTheyRead()) {
            // The completions' fences must not hold partition rows until the commit: see writesLockWhatTheyRead.
            transactions.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        }
    }

    /**
     * As {@link RecordTransactions#inTransaction}; a transaction manager that cannot begin the transaction (no
     * connection, the database down) ends in {@link TransactionNotBegunException}.
     */
    @Override
    public void inTransaction(Runnable work) {
        Objects.requireNonNull(work, "work");
        AtomicBoolean begun = new AtomicBoolean();
        try {
            transactions.executeWithoutResult(status -> {
                begun.set(true);
                runBound(work);
            });
        } catch (CannotCreateTransactionException e) {
            if (begun.get()) {
                throw e; // one the work threw
            }
            throw new TransactionNotBegunException("Outbox: " + transactions.getTransactionManager()
                    + " could not begin a transaction of the records' database: " + e.getMessage(), e);
        }
    }

    /** Runs the work in the transaction just begun, provided it is bound to the outbox's DataSource. */
    private void runBound(Runnable work) {
        if (!BoundTransactions.isOpen(dataSource)) {
            throw new IllegalStateException("Outbox: the transaction manager " + transactions.getTransactionManager()
                    + " began a transaction that is not bound to the outbox's DataSource, so the records' completions "
                    + "could not commit with the handler's writes; give the outbox the transaction manager of its "
                    + "DataSource (a DataSourceTransactionManager, JdbcTransactionManager or JpaTransactionManager "
                    + "over it)");
        }
        if (idleLimitStatement != null) {
            jdbc.queryForObject(idleLimitStatement, String.class, idleLimitMillis);
        }
        work.run();
    }

    @Override
    public String toString() {
        String idleLimit = idleLimitStatement == null ? "" : ", idle in a transaction at most " + idleLimitMillis
                + " ms";
        return "JdbcRecordTransactions[" + transactions.getTransactionManager() + idleLimit + "]";
    }
}
