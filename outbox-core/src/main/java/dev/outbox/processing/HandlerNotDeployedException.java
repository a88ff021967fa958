package dev.outbox.processing;

/**
 * No handler of this instance takes the record: it is addressed to a handler id this instance does not have, or to no
 * handler while this instance has no record processor. During a rolling deploy that is what records written by a newer
 * version look like to an older one, so the record is <em>deferred</em>: it stays NEW without using an attempt, its
 * aggregate's later records wait behind it, and it is due again after {@link ProcessingOptions#deferralInterval()} for
 * the instance that owns its partition by then, if that one has the handler. This instance sets the handler's records
 * aside and does not read or write them again, until {@link ProcessingOptions#maxDeferral()} has passed since the
 * record's first deferral: then it fails.
 */
public class HandlerNotDeployedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param message names the record, what it is addressed to and the handlers this instance has */
    public HandlerNotDeployedException(String message) {
        super(message);
    }
}
