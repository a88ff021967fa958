package dev.outbox.spi;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
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
        return headers.entrySet().stream()
                .map(header -> URLEncoder.encode(header.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(header.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
    }

    /** The headers of a stored trace context, in their order; empty for null. Malformed pairs are left out. */
    public static Map<String, String> decode(@Nullable String encoded) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (encoded == null || encoded.isEmpty()) {
            return headers;
        }
        for (String pair : encoded.split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0) {
                try {
                    headers.put(URLDecoder.decode(pair.substring(0, equals), StandardCharsets.UTF_8),
                            URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
                } catch (IllegalArgumentException malformed) {
                    // a context written by something else; the trace is lost, the record is not
                }
            }
        }
        return headers;
    }
}
