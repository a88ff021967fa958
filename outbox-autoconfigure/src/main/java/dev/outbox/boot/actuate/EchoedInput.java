package dev.outbox.boot.actuate;

/**
 * What an answer may repeat of a caller's input: a bounded, printable prefix, so that a 10 MB or binary value is not
 * sent back, nor breaks the JSON writer (an unpaired surrogate cannot be encoded).
 */
final class EchoedInput {

    /** Most characters of an input an answer repeats. */
    static final int MAX_ECHOED_CHARACTERS = 100;

    private EchoedInput() {
    }

    /**
     * {@code value} in quotes: control characters and unpaired surrogates written as {@code \\uXXXX}, cut after
     * {@value #MAX_ECHOED_CHARACTERS} characters and then followed by its length.
     */
    static String quoted(String value) {
        StringBuilder quoted = new StringBuilder("'");
        int end = Math.min(value.length(), MAX_ECHOED_CHARACTERS);
        for (int i = 0; i < end; i++) {
            char c = value.charAt(i);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1));
            if (pair && i + 1 < end) {
                quoted.append(c).append(value.charAt(++i));
            } else if (pair) {
                end = i; // a pair is not split: the cut comes before it
            } else if (Character.isISOControl(c) || Character.isSurrogate(c)) {
                quoted.append(String.format("\\u%04X", (int) c));
            } else {
                quoted.append(c);
            }
        }
        quoted.append('\'');
        if (end < value.length()) {
            quoted.insert(quoted.length() - 1, '…').append(" (").append(value.length()).append(" characters)");
        }
        return quoted.toString();
    }
}
