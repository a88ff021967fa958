package dev.outbox.nats;

import io.nats.client.Connection;
import io.nats.client.impl.ErrorListenerLoggerImpl;
import java.util.Set;
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

    /** Every publish in flight, whatever its subject: a set of its own per subject would be contended. */
    private final Set<Watched> inFlight = ConcurrentHashMap.newKeySet();

    /** The server refused a publish to {@code subject} for lack of permission. */
    static final class Refused extends RuntimeException {

        Refused(String error) {
            super(error, null, false, false);
        }
    }

    /** A publish in flight, told when the server refuses publishing to its subject. */
    interface Watched {

        String subject();

        void refused(Refused refusal);
    }

    @Override
    public void errorOccurred(Connection connection, String error) {
        super.errorOccurred(connection, error);
        Matcher violation = PUBLISH_VIOLATION.matcher(error);
        if (violation.find()) {
            String subject = violation.group(1);
            // rare: a look at every publish in flight costs less than keeping them by subject on every send
            for (Watched watched : inFlight) {
                if (watched.subject().equals(subject) && inFlight.remove(watched)) {
                    watched.refused(new Refused(error));
                }
            }
        }
    }

    /** Tells {@code publish} when the server refuses a publish to its subject, until it is {@link #unwatch}ed. */
    void watch(Watched publish) {
        inFlight.add(publish);
    }

    void unwatch(Watched publish) {
        inFlight.remove(publish);
    }
}
