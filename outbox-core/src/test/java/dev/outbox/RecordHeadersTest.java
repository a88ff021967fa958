package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordHeadersTest {

    @Test
    void decodeStrictlyReadsNoHeadersAsAnEmptyMapThatCannotBeChanged() {
        assertThat(RecordHeaders.decodeStrictly(null)).isEmpty();
        Map<String, String> none = RecordHeaders.decodeStrictly("");
        assertThat(none).isEmpty();
        assertThatThrownBy(() -> none.put("name", "value")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void decodeStrictlyKeepsTheStoredOrderAndRefusesTheWholeForOneBadPair() {
        Map<String, String> headers = RecordHeaders.decodeStrictly("tenant=t%201&b=2&a=");

        assertThat(headers).containsExactly(Map.entry("tenant", "t 1"), Map.entry("b", "2"), Map.entry("a", ""));
        assertThatThrownBy(() -> headers.put("c", "3")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> RecordHeaders.decodeStrictly("a=1&=2"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'=2'");
    }
}
