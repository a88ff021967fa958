package dev.outbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PropagationHeadersTest {

    @Test
    void headersSurviveTheirEncoding() {
        Map<String, String> headers = Map.of("traceparent", "00-abc-def-01", "tracestate", "vendor=a&b=c, x=1");

        assertThat(PropagationHeaders.decode(PropagationHeaders.encode(headers))).isEqualTo(headers);
        assertThat(PropagationHeaders.decode(null)).isEmpty();
    }

    @Test
    void malformedPairsAreLeftOut() {
        assertThat(PropagationHeaders.decode("traceparent=00-a-b-01&broken&bad=%zz&=x"))
                .containsExactly(Map.entry("traceparent", "00-a-b-01"));
    }
}
