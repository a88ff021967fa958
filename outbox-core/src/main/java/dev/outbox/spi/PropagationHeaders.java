package dev.outbox.spi;

import dev.outbox.internal.FormPairs;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How a record's trace context is stored: propagation headers ({@code traceparent}, {@code tracestate}, …) as
 * {@code name=value} pairs joined by {@code &}, each URL-encoded. Written by an {@link OutboxObservation}, read by it
 * again around the handler call, and by publishers, which put the headers on the message.
 */
public final class PropagationHeaders {

    private PropagationHeaders() {
    }

    public static String encode(Map<String, String> headers) {
        return FormPairs.encode(headers);
    }

    /** The headers of a stored trace context, in their order; empty for null. Malformed pairs are left out. */
    public static Map<String, String> decode(@Nullable String encoded) {
        return FormPairs.decode(encoded);
    }
}
