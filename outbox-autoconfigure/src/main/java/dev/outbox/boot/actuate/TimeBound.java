package dev.outbox.boot.actuate;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.jspecify.annotations.Nullable;

/**
 * A time bound as an operator sends it, to the actuator's operations or the console's filters: an ISO-8601 instant,
 * checked before any record is read or changed.
 */
public final class TimeBound {

    private TimeBound() {
    }

    /** The instant {@code value} names; null when absent or blank; else refused naming {@code parameter}. */
    public static @Nullable Instant parse(String parameter, @Nullable String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Instant.parse(value.strip());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(parameter + " must be an ISO-8601 instant such as "
                    + "2026-01-31T12:00:00Z, not " + EchoedInput.quoted(value));
        }
    }

    /** Refuses a range that holds no instant, which would match nothing while looking like a filter that did. */
    public static void checkRange(@Nullable Instant from, String fromName, @Nullable Instant before,
            String beforeName) {
        if (from != null && before != null && !from.isBefore(before)) {
            throw new IllegalArgumentException(fromName + " (" + from + ") must be before " + beforeName + " ("
                    + before + ")");
        }
    }
}
