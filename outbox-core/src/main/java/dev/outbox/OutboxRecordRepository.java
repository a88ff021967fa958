package dev.outbox;

import java.util.List;
import java.util.Optional;

/**
 * Writes outbox records in the caller's transaction, and reads them back.
 *
 * <p>Call {@link #save(OutboxRecord)} inside the business transaction: the record commits with the business change
 * and disappears with its rollback. Without a surrounding transaction a save runs in a transaction of its own.
 */
public interface OutboxRecordRepository {

    /**
     * Stores a new record in the current transaction. Throws {@link IllegalArgumentException} naming the limit when
     * the payload is over {@code outbox.max-payload-size}; nothing is written then.
     *
     * @return the record as given; its {@link OutboxRecord#getSequence() sequence} is assigned by the database
     */
    OutboxRecord save(OutboxRecord record);

    /** Stores several records in the current transaction, in the given order. */
    default List<OutboxRecord> saveAll(Iterable<OutboxRecord> records) {
        List<OutboxRecord> saved = new java.util.ArrayList<>();
        for (OutboxRecord record : records) {
            saved.add(save(record));
        }
        return saved;
    }

    /**
     * Whether a save now joins a transaction of the database this repository writes to: false when no transaction is
     * open there, whatever transactions other resources have open. A repository that cannot tell answers true.
     */
    default boolean isTransactionActive() {
        return true;
    }

    Optional<OutboxRecord> findById(String id);

    /** Every record of one aggregate, in processing order. */
    List<OutboxRecord> findByAggregateId(String aggregateId);

    /** Up to {@code limit} records with the status, oldest first. */
    List<OutboxRecord> findByStatus(OutboxRecordStatus status, int limit);

    long countByStatus(OutboxRecordStatus status);
}
