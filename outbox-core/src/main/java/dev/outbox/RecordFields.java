package dev.outbox;

import com.google.common.base.Utf8;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The checks on the text fields of a record, one rule set for every database: what one of them cannot store (an
 * unpaired surrogate; U+0000, which PostgreSQL's text refuses) is refused when a new record is built, naming the
 * field, rather than at commit, where it would fail the whole business transaction. Rows read back are taken as
 * stored, so that a row written before a rule existed can still be processed.
 */
final class RecordFields {

    private RecordFields() {
    }

    /** A required, non-blank text of at most {@code maxLength} code points. */
    static String requireText(String field, @Nullable String value, int maxLength) {
        if (value == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        if (value.isBlank()) {
            throw new IllegalArgumentException(field + " must not be blank");
        }
        int length = value.codePointCount(0, value.length());
        if (length > maxLength) {
            throw new IllegalArgumentException(
                    field + " is " + length + " characters long; the limit is " + maxLength + " characters");
        }
        try {
            Utf8.encodedLength(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + " is not valid UTF-16 text: " + e.getMessage(), e);
        }
        return value;
    }

    /**
     * A text that a new record's field may hold: {@link #requireText}'s rules and no U+0000. A value that breaks them
     * matches no record, and PostgreSQL cannot even compare it, so filters are held to the same rule.
     */
    static String storableText(String field, @Nullable String value, int maxLength) {
        return Objects.requireNonNull(withoutNul(field, requireText(field, value, maxLength)));
    }

    /** An optional text of at most {@code maxLength} characters. */
    static @Nullable String optionalText(String field, @Nullable String value, int maxLength) {
        if (value == null) {
            return null;
        }
        if (value.length() > maxLength) {
            throw new IllegalArgumentException(
                    field + " must be at most " + maxLength + " characters but was " + value.length());
        }
        return value;
    }

    /** Refuses U+0000 in a text of a new record: PostgreSQL cannot store it, and no database should differ. */
    static @Nullable String withoutNul(String field, @Nullable String value) {
        int nul = value == null ? -1 : value.indexOf('\u0000');
        if (nul >= 0) {
            throw new IllegalArgumentException(field + " contains the character U+0000 (at index " + nul
                    + "), which PostgreSQL cannot store; escape it (JSON writes it as \\u0000) or remove it");
        }
        return value;
    }

    /** The payload's size in UTF-8 bytes, checked against the limit named by {@code outbox.max-payload-size}. */
    static void checkPayloadSize(String payload, int maxPayloadBytes) {
        int bytes = utf8Length("payload", payload);
        if (bytes > maxPayloadBytes) {
            throw new IllegalArgumentException("payload is " + bytes + " bytes (UTF-8); the limit is "
                    + maxPayloadBytes + " bytes (outbox.max-payload-size)");
        }
    }

    /** UTF-8 size of a text that every database can store faithfully: valid UTF-16 and without U+0000. */
    private static int utf8Length(String field, String value) {
        withoutNul(field, value);
        try {
            return Utf8.encodedLength(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + " is not valid UTF-16 text: " + e.getMessage(), e);
        }
    }
}
