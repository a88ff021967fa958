package dev.outbox.spi;

import org.jspecify.annotations.Nullable;

/**
 * A {@link RecordTransactions} transaction could not begin (no connection, the database down): nothing of its work
 * ran. The engine then leaves the records it was to run as they were, for a later pass, rather than count a failed
 * attempt against any of them: the fault is the database's, not a record's.
 *
 * @since 0.1.0
 */
public class TransactionNotBegunException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public TransactionNotBegunException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
