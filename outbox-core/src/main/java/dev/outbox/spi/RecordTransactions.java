package dev.outbox.spi;

/**
 * Transactions on the database the records live in, for transactional handlers: what the work writes to that
 * database, and the {@link RecordStore}'s status writes made by the same thread meanwhile, commit together or not at
 * all. The engine runs a transactional handler and its record's fenced completion in one of them, so that a
 * completion the fence refuses takes the handler's writes with it.
 *
 * <p>Only a store whose writes join such a transaction can offer one: the JDBC stores do, through the outbox's
 * {@code DataSource} and its transaction manager. Without one, a processor with transactional handlers refuses to be
 * built rather than run them without the guarantee.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface RecordTransactions {

    /**
     * Runs {@code work} in a new transaction and commits it when the work returns; when the work throws, rolls the
     * transaction back and rethrows what it threw.
     *
     * @throws TransactionNotBegunException when the transaction could not begin (no connection, the database down):
     *     the work did not run. The engine leaves its records as they were, for a later pass
     * @throws RuntimeException what the work threw, or why the transaction could not commit (then nothing of it took
     *     effect, or the database cannot tell: a commit whose answer was lost). The engine takes such a failure for
     *     one that its records may cause (a constraint checked at commit, a transaction a handler spoiled) and runs
     *     them again in smaller transactions, until the one record it fails with counts a failed attempt
     */
    void inTransaction(Runnable work);
}
