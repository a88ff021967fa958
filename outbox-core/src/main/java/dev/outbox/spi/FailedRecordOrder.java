package dev.outbox.spi;

/**
 * The order of a page of FAILED records: by {@code sequence_no}, which is unique, so a page ends at one record and
 * the next starts right after it.
 *
 * @since 0.1.0
 */
public enum FailedRecordOrder {
    /** Lowest sequence first: the oldest records. */
    OLDEST_FIRST,
    /** Highest sequence first: the newest records. */
    NEWEST_FIRST
}
