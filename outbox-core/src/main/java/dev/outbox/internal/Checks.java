package dev.outbox.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Checks of settings and arguments; each failure names the setting and the limit. */
public final class Checks {

    private static final Pattern HANDLER_ID = Pattern.compile("[A-Za-z0-9._:-]+");

    private Checks() {
    }

    /** {@code value}, which must be longer than zero. */
    public static Duration positive(String name, @Nullable Duration value) {
        Objects.requireNonNull(value, name + " must not be null");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive but was " + value);
        }
        return value;
    }

    /** {@code value}, which must not be negative. */
    public static Duration notNegative(String name, @Nullable Duration value) {
        Objects.requireNonNull(value, name + " must not be null");
        if (value.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative but was " + value);
        }
        return value;
    }

    /** {@code value}, which must be in {@code min..max}. */
    public static int inRange(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + " but was " + value);
        }
        return value;
    }

    /** {@code value}, which must be at least {@code min}. */
    public static long atLeast(String name, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be at least " + min + " but was " + value);
        }
        return value;
    }

    /** {@code value}, which must be text of at most {@code maxLength} characters. */
    public static String requireText(String name, @Nullable String value, int maxLength) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank");
        }
        if (value.length() > maxLength) {
            throw new IllegalArgumentException(name + " is " + value.length() + " characters long; the limit is "
                    + maxLength);
        }
        return value;
    }

    /**
     * A handler id: not empty, at most {@code maxLength} characters of letters, digits, '.', '_', ':' and '-'. Shared
     * by handlers and publishers, which both register under a handler id.
     */
    public static String handlerId(@Nullable String id, int maxLength) {
        if (id == null || id.isEmpty()) {
            throw new IllegalArgumentException("handler id must not be empty");
        }
        if (id.length() > maxLength) {
            throw new IllegalArgumentException("handler id is " + id.length() + " characters long; the limit is "
                    + maxLength + " characters");
        }
        if (!HANDLER_ID.matcher(id).matches()) {
            throw new IllegalArgumentException("handler id '" + id
                    + "' may contain only letters, digits, '.', '_', ':' and '-'");
        }
        return id;
    }
}
