package dev.outbox.jdbc;

import java.util.Set;

/**
 * Callbacks around the commit of a transaction that saved records, with the partitions it wrote to: the write
 * repositories ({@link JdbcOutboxRecordRepository}, and outbox-jpa's on top of it) run them once per such
 * transaction, so that processors can look for the records at once instead of at their next poll.
 */
public interface CommitHooks {

    /** No callbacks. */
    CommitHooks NONE = new CommitHooks() {
    };

    /** In the transaction, just before it commits (to notify other instances, say); a failure fails the commit. */
    default void beforeCommit(Set<Integer> partitions) {
    }

    /** After the commit (to wake the local processor, say); must be fast. */
    default void afterCommit(Set<Integer> partitions) {
    }
}
