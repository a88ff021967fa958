package dev.outbox.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Locale;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds a broker for a test, the way the database tests find their servers: the address in
 * {@code OUTBOX_TEST_<NAME>_URL} if set, else the local server if it answers within a few seconds. Without one the
 * test is skipped, or fails when {@code OUTBOX_TEST_REQUIRE_BROKERS} is {@code true} (CI sets it, so that a missing
 * broker cannot pass unnoticed).
 */
public final class TestBrokers {

    private static final int PROBE_TIMEOUT_MILLIS = 3000;

    private TestBrokers() {
    }

    /**
     * The broker's address.
     *
     * @param name the broker's name, e.g. {@code RABBITMQ}: the variable {@code OUTBOX_TEST_RABBITMQ_URL} overrides
     *     the local address
     * @param localUrl the local server's URL, e.g. {@code amqp://guest:guest@127.0.0.1:5672}
     * @return the URL to use, checked to accept TCP connections
     */
    public static String require(String name, String localUrl) {
        String variable = "OUTBOX_TEST_" + name.toUpperCase(Locale.ROOT) + "_URL";
        String configured = System.getenv(variable);
        String url = configured == null || configured.isBlank() ? localUrl : configured;
        java.net.URI uri = java.net.URI.create(url);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), PROBE_TIMEOUT_MILLIS);
            return url;
        } catch (IOException e) {
            throw unavailable(name + " is not reachable at " + uri.getHost() + ":" + uri.getPort() + " (" + e
                    + "); set " + variable + " to use another", e);
        }
    }

    /**
     * Skips the test for want of something a broker test needs (a server, its command-line tool), or fails it when
     * {@code OUTBOX_TEST_REQUIRE_BROKERS} is {@code true}. Never returns: {@code throw unavailable(..)}.
     */
    public static RuntimeException unavailable(String why, Throwable cause) {
        if (Boolean.parseBoolean(System.getenv("OUTBOX_TEST_REQUIRE_BROKERS"))) {
            throw new IllegalStateException(why + ". OUTBOX_TEST_REQUIRE_BROKERS=true: failing instead of skipping",
                    cause);
        }
        Assumptions.abort(why + "; skipped");
        throw new AssertionError("unreachable");
    }
}
