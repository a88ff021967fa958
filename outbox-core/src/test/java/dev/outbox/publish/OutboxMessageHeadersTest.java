package dev.outbox.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutboxMessageHeadersTest {

    private final OutboxRecord record = OutboxRecord.builder().aggregateId("order-1").eventType("OrderPlaced")
            .payload("{}").build(Clock.fixed(Instant.parse("2026-11-24T10:15:30.123Z"), ZoneOffset.UTC))
            .toBuilder().sequence(7L).epoch(3).traceContext("traceparent=00-0af7651916cd43dd8448eb211c80319c-"
                    + "b7ad6b7169203331-01&tracestate=vendor%3Da").build();

    @Test
    void everyMessageCarriesTheRecordsIdentityPlaceAndTraceContext() {
        Map<String, String> headers = OutboxMessageHeaders.defaults().of(record);

        assertThat(headers).containsExactly(
                Map.entry("outbox-record-id", record.getId()),
                Map.entry("outbox-event-type", "OrderPlaced"),
                Map.entry("outbox-aggregate-id", "order-1"),
                Map.entry("outbox-sequence", "7"),
                Map.entry("outbox-partition", Integer.toString(record.getPartition())),
                Map.entry("outbox-epoch", "3"),
                Map.entry("outbox-created-at", "2026-11-24T10:15:30.123Z"),
                Map.entry("content-type", "application/json"),
                Map.entry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
                Map.entry("tracestate", "vendor=a"));
    }

    @Test
    void theWritersHeadersFollowButNeverReplaceTheOutboxs() {
        OutboxRecord withHeaders = record.withHeaders(Map.of("tenant", "acme"))
                .withHeaders(Map.of("outbox-record-id", "forged"));

        Map<String, String> headers = OutboxMessageHeaders.defaults().of(withHeaders);

        assertThat(headers).containsEntry("tenant", "acme").containsEntry("outbox-record-id", record.getId());
    }

    @Test
    void cloudEventsAttributesInBinaryModeWhenSwitchedOn() {
        Map<String, String> headers = OutboxMessageHeaders.builder().contentType("application/avro")
                .cloudEvents("urn:orders-service").build().of(record);

        assertThat(headers).containsEntry("content-type", "application/avro")
                .containsEntry("ce_specversion", "1.0")
                .containsEntry("ce_id", record.getId())
                .containsEntry("ce_type", "OrderPlaced")
                .containsEntry("ce_source", "urn:orders-service")
                .containsEntry("ce_subject", "order-1")
                .containsEntry("ce_time", "2026-11-24T10:15:30.123Z");
    }

    @Test
    void aRecordWithoutSequenceOrTraceHasNeitherHeader() {
        OutboxRecord plain = record.toBuilder().sequence(null).traceContext(null).build();

        assertThat(OutboxMessageHeaders.defaults().of(plain)).doesNotContainKeys("outbox-sequence", "traceparent");
    }

    @Test
    void blankSettingsAreRefusedNamingTheField() {
        assertThatThrownBy(() -> OutboxMessageHeaders.builder().contentType(" "))
                .hasMessage("contentType must not be blank");
        assertThatThrownBy(() -> OutboxMessageHeaders.builder().cloudEvents(""))
                .hasMessage("cloudEvents source must not be blank");
    }
}
