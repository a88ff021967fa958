package dev.outbox.nats;

import io.nats.client.Connection;
import io.nats.client.impl.ErrorListenerLoggerImpl;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The connection's error listener that tells the publisher of the server's permission violations. NATS reports a
 * publish it refuses for lack of permission to the connection's error listener, never to the publish itself, which
 * would only time out and be retried for ever; with this listener on the connection, every publish in flight to the
 * refused subject fails at once as {@link dev.outbox.publish.PublishException.Reason#NOT_AUTHORIZED}.
 *
 * <p>Set it on the connection ({@code Options.Builder.errorListener(new NatsPermissionViolations())}): the publisher
 * finds it there. It logs as the client's default listener does. An application with a listener of its own calls
 * {@link #errorOccurred(Connection, String)} of one from it, and gives that one to
 * {@link NatsOutboxPublisher.Builder#permissionViolations(NatsPermissionViolations)}.
 * Thread-safe.
 */
public class NatsPermissionViolations extends ErrorListenerLoggerImpl {

    private static final Pattern PUBLISH_VIOLATION = Pattern.compile(
            "permissions violation for publish to \"?([^\"\\s]+)\"?", Pattern.CASE_INSENSITIVE);

    private final Map<String, Set<CompletableFuture<?>>> inFlightBySubject = new ConcurrentHashMap<>();

    /** The server refused a publish to {@code subject} for lack of permission. */
    static final class Refused extends RuntimeException {

        Refused(String error) {
            super(error, null, false, false);
        }
    }

    @Override
    public void errorOccurred(Connection connection, String error) {
        super.errorOccurred(connection, error);
        Matcher violation = PUBLISH_VIOLATION.matcher(error);
        if (violation.find()) {
            Set<CompletableFuture<?>> refused = inFlightBySubject.get(violation.group(1));
            if (refused != null) {
                refused.forEach(outcome -> outcome.completeExceptionally(new Refused(error)));
            }
        }
    }

    /** Fails {@code outcome} when the server refuses a publish to {@code subject}, until {@code outcome} completes. */
    void watch(String subject, CompletableFuture<?> outcome) {
        // added and removed under the map's lock for the subject, so an add never lands in a set just dropped
        inFlightBySubject.compute(subject, (key, watched) -> {
            Set<CompletableFuture<?>> set = watched == null ? ConcurrentHashMap.newKeySet() : watched;
            set.add(outcome);
            return set;
        });
        outcome.whenComplete((result, failure) -> inFlightBySubject.computeIfPresent(subject, (key, watched) -> {
            watched.remove(outcome);
            return watched.isEmpty() ? null : watched;
        }));
    }
}
