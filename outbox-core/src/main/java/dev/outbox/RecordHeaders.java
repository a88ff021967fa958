package dev.outbox;

import dev.outbox.internal.FormPairs;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The rules and the stored form of a record's headers: free-form names and values the writer sets (a tenant, a
 * correlation id, a schema version), stored with the record in one column, given to handlers in
 * {@link dev.outbox.handler.RecordMetadata} and sent as message headers by the publishers.
 *
 * <p>Limits, checked when a new record is built, naming the header and the limit: at most {@value #MAX_HEADERS}
 * headers; a name of 1 to {@value #MAX_NAME_LENGTH} characters of {@code A-Z a-z 0-9 . _ -}, starting with a letter
 * or digit; a value without U+0000; at most {@value #MAX_STORED_LENGTH} characters in all as stored (names and values
 * URL-encoded).
 */
public final class RecordHeaders {

    public static final int MAX_HEADERS = 32;
    public static final int MAX_NAME_LENGTH = 64;
    /** The length of the {@code headers} column. */
    public static final int MAX_STORED_LENGTH = 4000;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0," + (MAX_NAME_LENGTH - 1) + "}");

    private RecordHeaders() {
    }

    /**
     * An unmodifiable copy of {@code headers}, in their order.
     *
     * @throws IllegalArgumentException naming the header and the limit it breaks
     */
    static Map<String, String> checked(Map<String, String> headers) {
        if (headers.size() > MAX_HEADERS) {
            throw new IllegalArgumentException("headers has " + headers.size() + " entries; the limit is "
                    + MAX_HEADERS);
        }
        Map<String, String> copy = new LinkedHashMap<>();
        headers.forEach((name, value) -> {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("headers: the name '" + name + "' is not 1 to " + MAX_NAME_LENGTH
                        + " characters of A-Z a-z 0-9 . _ - starting with a letter or digit");
            }
            if (value == null) {
                throw new IllegalArgumentException("headers: the value of '" + name + "' must not be null");
            }
            copy.put(name, RecordFields.withoutNul("headers." + name, value));
        });
        int stored = encode(copy).length();
        if (stored > MAX_STORED_LENGTH) {
            throw new IllegalArgumentException("headers take " + stored + " characters as stored; the limit is "
                    + MAX_STORED_LENGTH);
        }
        return Collections.unmodifiableMap(copy);
    }

    /** The stored form: see {@link FormPairs}. */
    public static String encode(Map<String, String> headers) {
        return FormPairs.encode(headers);
    }

    /** The headers of a stored form, in their order; empty for null. */
    public static Map<String, String> decode(@Nullable String stored) {
        return Collections.unmodifiableMap(FormPairs.decode(stored));
    }

    /**
     * The headers of a stored form, in their order; empty for null. Unlike {@link #decode}, which leaves out what it
     * cannot read, it refuses the whole: for a store telling a row's headers unreadable rather than handing its record
     * over without some of them.
     *
     * @throws IllegalArgumentException quoting the first pair that is not a URL-encoded {@code name=value}
     * @since 0.1.0
     */
    public static Map<String, String> decodeStrictly(@Nullable String stored) {
        if (stored == null || stored.isEmpty()) {
            return Map.of(); // most records have no headers: no map to make for each one read
        }
        return Collections.unmodifiableMap(FormPairs.decodeStrictly(stored));
    }
}
