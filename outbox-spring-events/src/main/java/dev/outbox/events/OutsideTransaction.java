package dev.outbox.events;

/**
 * What happens to an event for the outbox that is published outside a transaction of the outbox's DataSource: with no
 * transaction open, or only another resource's (another database's, say).
 */
public enum OutsideTransaction {

    /**
     * {@code publishEvent} throws, naming the event: the caller learns at once that the event would not commit with
     * its business change. The default.
     */
    FAIL,

    /**
     * The record is written in a new transaction of its own, committed before {@code publishEvent} returns, whatever
     * becomes of another resource's open transaction.
     */
    OWN_TRANSACTION
}
