package dev.outbox.internal;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Name-value pairs in one text column: {@code name=value} joined by {@code &}, each URL-encoded, in their order. Used
 * for a record's headers and its trace context. Lists likewise: items URL-encoded and joined by {@code ,}.
 */
public final class FormPairs {

    private FormPairs() {
    }

    public static String encode(Map<String, String> pairs) {
        return pairs.entrySet().stream()
                .map(pair -> URLEncoder.encode(pair.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(pair.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
    }

    public static String encodeList(Collection<String> items) {
        return items.stream().map(item -> URLEncoder.encode(item, StandardCharsets.UTF_8))
                .collect(Collectors.joining(","));
    }

    /** The items, in their order; empty for null or empty text. Malformed items are left out. */
    public static List<String> decodeList(@Nullable String encoded) {
        List<String> items = new ArrayList<>();
        if (encoded == null || encoded.isEmpty()) {
            return items;
        }
        for (String item : encoded.split(",")) {
            try {
                items.add(URLDecoder.decode(item, StandardCharsets.UTF_8));
            } catch (IllegalArgumentException malformed) {
                // written by something else: that item is lost
            }
        }
        return items;
    }

    /** The pairs, in their order; empty for null or empty text. Malformed pairs are left out. */
    public static Map<String, String> decode(@Nullable String encoded) {
        Map<String, String> pairs = new LinkedHashMap<>();
        if (encoded == null || encoded.isEmpty()) {
            return pairs;
        }
        for (String pair : encoded.split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0) {
                try {
                    pairs.put(URLDecoder.decode(pair.substring(0, equals), StandardCharsets.UTF_8),
                            URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
                } catch (IllegalArgumentException malformed) {
                    // written by something else: that pair is lost, the record is not
                }
            }
        }
        return pairs;
    }

    /**
     * The pairs, in their order; empty for null or empty text.
     *
     * @throws IllegalArgumentException quoting the first pair that is not a URL-encoded {@code name=value}
     */
    public static Map<String, String> decodeStrictly(@Nullable String encoded) {
        Map<String, String> pairs = new LinkedHashMap<>();
        if (encoded == null || encoded.isEmpty()) {
            return pairs;
        }
        for (String pair : encoded.split("&", -1)) {
            int equals = pair.indexOf('=');
            try {
                if (equals <= 0) {
                    throw new IllegalArgumentException("no name before '='");
                }
                pairs.put(URLDecoder.decode(pair.substring(0, equals), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
            } catch (IllegalArgumentException malformed) {
                throw new IllegalArgumentException("'" + (pair.length() > 100 ? pair.substring(0, 100) + "…" : pair)
                        + "' is not a URL-encoded name=value pair (" + malformed.getMessage() + ")", malformed);
            }
        }
        return pairs;
    }
}
