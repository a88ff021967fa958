package dev.outbox.events;

/** What happens to an event for the outbox that is published outside a transaction. */
public enum OutsideTransaction {

    /**
     * {@code publishEvent} throws, naming the event: the caller learns at once that the event would not commit with
     * its business change. The default.
     */
    FAIL,

    /** The record is written in a transaction of its own, committed before {@code publishEvent} returns. */
    OWN_TRANSACTION
}
