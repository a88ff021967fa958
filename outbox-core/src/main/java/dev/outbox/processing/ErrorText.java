package dev.outbox.processing;

import com.google.common.base.Throwables;
import dev.outbox.OutboxRecord;

/**
 * The bounded error text stored on a failed record: the exception and, if different, its root cause. U+0000, which
 * PostgreSQL's text cannot hold, becomes U+FFFD: an error text the database refuses would lose the attempt.
 */
final class ErrorText {

    private ErrorText() {
    }

    static String of(Throwable error) {
        String text = error.toString();
        Throwable root = Throwables.getRootCause(error);
        if (root != error) {
            text = text + " (root cause: " + root + ")";
        }
        return truncate(text.replace('\u0000', '\uFFFD'), OutboxRecord.MAX_ERROR_LENGTH);
    }

    static String truncate(String text, int maxLength) {
        if (text.length() <= maxLength) {
            return text;
        }
        int end = maxLength - 1;
        // Never cut a surrogate pair in half: the database would reject or mangle the lone half.
        if (Character.isHighSurrogate(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(0, end) + "…";
    }
}
