package dev.outbox.processing;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The handler ids whose records this instance defers, learnt from the routes as their records come by. The due fetch
 * sets them aside, so that a deferred backlog takes none of its places ahead of the records this instance can
 * process; a separate look, every deferral interval (at once again while it comes back full and the due fetch had
 * room), finds the few of them that need a decision: a first deferral, or failing once the maximum deferral has
 * passed. A record deferred already is neither read nor written in between, so a large backlog costs one write per
 * record, not one every interval. A lane's records share one handler id, so setting them aside keeps lane order.
 *
 * <p>Used under the dispatcher's fetch lock; synchronized all the same, since it is cheap.
 */
final class DeferredHandlers {

    private final Duration lookInterval;
    private final Duration maxDeferral;
    /** As the handler_id column holds them: empty for records addressed to no handler. */
    private final Set<String> setAside = new HashSet<>();
    private @Nullable Instant lastLook;
    private boolean lastLookFull;

    DeferredHandlers(ProcessingOptions options) {
        this.lookInterval = options.deferralInterval();
        this.maxDeferral = options.maxDeferral();
    }

    /** What the routes said about a lane's handler: taken here, or deferred. */
    synchronized void routed(@Nullable String handlerId, boolean deferred) {
        String key = handlerId == null ? "" : handlerId;
        if (deferred) {
            setAside.add(key);
        } else {
            setAside.remove(key); // routes that take it now (routes may change): fetch its records again
        }
    }

    synchronized Set<String> setAside() {
        return Set.copyOf(setAside);
    }

    /**
     * Whether to look at the set-aside records now: every look interval, and sooner while the last look came back
     * full, once the due fetch left room (processable records go first).
     */
    synchronized boolean lookDue(Instant now, boolean dueFetchHadRoom) {
        if (setAside.isEmpty()) {
            return false;
        }
        return lastLook == null || !now.isBefore(lastLook.plus(lookInterval)) || (lastLookFull && dueFetchHadRoom);
    }

    synchronized void looked(Instant now, boolean full) {
        lastLook = now;
        lastLookFull = full;
    }

    /** Records first deferred at or before this have waited the maximum deferral. */
    Instant maxDeferralCutoff(Instant now) {
        return now.minus(maxDeferral);
    }
}
