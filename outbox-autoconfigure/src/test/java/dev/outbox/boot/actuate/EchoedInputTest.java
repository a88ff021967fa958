package dev.outbox.boot.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Issue 29: an answer repeats at most 100 printable characters of what it was sent, and says how long it was. */
class EchoedInputTest {

    @Test
    void aShortPrintableValueIsRepeatedAsSent() {
        assertThat(EchoedInput.quoted("purge")).isEqualTo("'purge'");
        assertThat(EchoedInput.quoted("x".repeat(100))).isEqualTo("'" + "x".repeat(100) + "'");
    }

    @Test
    void controlCharactersAndUnpairedSurrogatesAreEscapedAndPairsKept() {
        assertThat(EchoedInput.quoted("a\u0000b\nc\u007F\u009F")).isEqualTo("'a\\u0000b\\u000Ac\\u007F\\u009F'");
        assertThat(EchoedInput.quoted("\uD800x\uDC00")).isEqualTo("'\\uD800x\\uDC00'");
        assertThat(EchoedInput.quoted("\uD83D\uDE00")).isEqualTo("'\uD83D\uDE00'");
    }

    @Test
    void aLongValueIsCutAfterOneHundredCharactersAndItsLengthStated() {
        assertThat(EchoedInput.quoted("x".repeat(10 * 1024 * 1024)))
                .isEqualTo("'" + "x".repeat(100) + "…' (10485760 characters)");
        assertThat(EchoedInput.quoted("x".repeat(99) + "\uD83D\uDE00" + "y"))
                .as("a surrogate pair is not split by the cut")
                .isEqualTo("'" + "x".repeat(99) + "…' (102 characters)");
    }
}
