package dev.outbox.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.publish.EventTypeRouting;
import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.publish.PublishException.Reason;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.testkit.DeliveryCheck;
import dev.outbox.testkit.PublishingRig;
import io.nats.client.Connection;
import io.nats.client.api.MessageInfo;
import io.nats.client.impl.Headers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The NATS publisher in the real engine against a real JetStream server. */
class NatsOutboxPublisherTest {

    /**
     * The headers the README documents for every broker (CloudEvents on; no trace context is stored with these
     * records), and the writer's own: a message carrying any other header fails the exact-set check.
     */
    static final List<String> DOCUMENTED_HEADERS = List.of(OutboxMessageHeaders.RECORD_ID,
            OutboxMessageHeaders.EVENT_TYPE, OutboxMessageHeaders.AGGREGATE_ID, OutboxMessageHeaders.SEQUENCE,
            OutboxMessageHeaders.PARTITION, OutboxMessageHeaders.EPOCH, OutboxMessageHeaders.CREATED_AT,
            OutboxMessageHeaders.CONTENT_TYPE, "ce_specversion", "ce_id", "ce_type", "ce_source", "ce_subject",
            "ce_time", PublishingRig.TENANT_HEADER);

    private static final Duration DEADLINE = Duration.ofSeconds(120);
    private static NatsTestServer server;
    private static Connection connection;

    @BeforeAll
    static void connect() {
        server = NatsTestServer.require();
        connection = server.connect();
    }

    @AfterAll
    static void close() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void tenThousandRecordsOfAThousandAggregatesAreStoredOnceInOrderWithTheirHeaders() {
        String stream = server.createStream("roundtrip", -1);
        NatsOutboxPublisher publisher = NatsOutboxPublisher.builder(connection)
                .router(EventTypeRouting.<String>builder("NATS subject").route("OrderPlaced", stream + ".orders")
                        .build())
                .headers(OutboxMessageHeaders.builder().cloudEvents("/orders").build())
                .build();
        List<OutboxRecord> written;
        try (PublishingRig rig = PublishingRig.start("nats", publisher, OutboxRetryPolicy.defaults())) {
            written = rig.write(1_000, 10, "OrderPlaced");
            rig.awaitAllCompleted(DEADLINE);
            assertThat(rig.published()).isEqualTo(10_000);
            assertThat(rig.failuresByReason()).isEmpty();
            written = written.stream().map(rig::stored).toList();
        }

        List<MessageInfo> messages = server.readAll(stream);
        DeliveryCheck check = DeliveryCheck.of(written, messages.stream().map(NatsTestServer::consumed).toList());
        assertThat(check.missing()).as("%s", check).isEmpty();
        assertThat(check.unknown()).isEmpty();
        assertThat(check.copies()).isZero();
        assertThat(check.orderViolations()).isEmpty();

        Map<String, OutboxRecord> byId = written.stream()
                .collect(Collectors.toMap(OutboxRecord::getId, Function.identity()));
        assertThat(messages).hasSize(10_000).allSatisfy(message -> {
            OutboxRecord record = byId.get(message.getHeaders().getFirst(OutboxMessageHeaders.RECORD_ID));
            Headers headers = message.getHeaders();
            assertThat(message.getSubject()).isEqualTo(stream + ".orders");
            assertThat(new String(message.getData(), StandardCharsets.UTF_8)).isEqualTo(record.getPayload());
            assertThat(headers.getFirst("Nats-Msg-Id")).isEqualTo(record.getId());
            assertThat(headers.getFirst(OutboxMessageHeaders.EVENT_TYPE)).isEqualTo("OrderPlaced");
            assertThat(headers.getFirst(OutboxMessageHeaders.PARTITION))
                    .isEqualTo(Integer.toString(record.getPartition()));
            assertThat(headers.getFirst(OutboxMessageHeaders.EPOCH)).isEqualTo("0");
            assertThat(headers.getFirst(OutboxMessageHeaders.CREATED_AT))
                    .isEqualTo(record.getCreatedAt().toString());
            assertThat(headers.getFirst(OutboxMessageHeaders.CONTENT_TYPE)).isEqualTo("application/json");
            assertThat(headers.getFirst("ce_id")).isEqualTo(record.getId());
            assertThat(headers.getFirst("ce_source")).isEqualTo("/orders");
            assertThat(headers.getFirst("ce_subject")).isEqualTo(record.getAggregateId());
            assertThat(headers.getFirst(PublishingRig.TENANT_HEADER))
                    .isEqualTo(PublishingRig.tenantOf(record.getAggregateId()));
            // and JetStream's deduplication id, which the NATS section documents
            List<String> expected = new ArrayList<>(DOCUMENTED_HEADERS);
            expected.add("Nats-Msg-Id");
            assertThat(headers.keySet()).as("the documented headers").containsExactlyInAnyOrderElementsOf(expected);
            assertThat(headers.get(OutboxMessageHeaders.RECORD_ID)).as("each once").hasSize(1);
        });
    }

    @Test
    void whatCanNeverBePublishedFailsAtOnceNamingTheSubjectAndTheCauseWhileOtherAggregatesFlow() {
        String stream = server.createStream("errors", 1024);
        String unstored = "unstored-" + stream + ".orders";
        NatsOutboxPublisher publisher = NatsOutboxPublisher.builder(connection)
                .router(EventTypeRouting.<String>builder("NATS subject")
                        .route("OrderPlaced", stream + ".orders")
                        .route("Unstored", unstored)
                        .build())
                .build();
        try (PublishingRig rig = PublishingRig.start("nats", publisher,
                OutboxRetryPolicy.fixed(Duration.ofMillis(200)).withMaxRetries(5))) {
            OutboxRecord noStream = rig.write("no-stream", "Unstored", "{}");
            OutboxRecord overStreamLimit = rig.write("over-stream-limit", "OrderPlaced",
                    "{\"text\":\"" + "x".repeat(2_000) + "\"}");
            OutboxRecord overServerLimit = rig.write("over-server-limit", "OrderPlaced",
                    "x".repeat(OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES));
            OutboxRecord noRoute = rig.write("no-route", "OrderCancelled", "{}");
            List<OutboxRecord> fine = rig.write(20, 5, "OrderPlaced");

            OutboxRecord failed = rig.awaitSettled(noStream, DEADLINE);
            assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
            assertThat(failed.getRetryCount()).isZero();
            assertThat(failed.getLastError()).contains(unstored).contains("no JetStream stream stores this subject");

            failed = rig.awaitSettled(overStreamLimit, DEADLINE);
            assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
            assertThat(failed.getRetryCount()).isZero();
            assertThat(failed.getLastError()).contains(stream + ".orders").contains("message size exceeds maximum");

            failed = rig.awaitSettled(overServerLimit, DEADLINE);
            assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
            assertThat(failed.getRetryCount()).isZero();
            assertThat(failed.getLastError()).contains(stream + ".orders").contains("max_payload of 1048576");

            failed = rig.awaitSettled(noRoute, DEADLINE);
            assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
            assertThat(failed.getLastError()).contains("no NATS subject for event type 'OrderCancelled'");

            assertThat(fine).allSatisfy(record -> assertThat(rig.awaitSettled(record, DEADLINE).getStatus())
                    .isEqualTo(OutboxRecordStatus.COMPLETED));
            assertThat(rig.failuresByReason()).containsOnly(Map.entry(Reason.DESTINATION_NOT_FOUND, 1L),
                    Map.entry(Reason.TOO_LARGE, 2L), Map.entry(Reason.NO_DESTINATION, 1L));
            assertThat(connection.getStatus()).as("the oversized message never reached the server")
                    .isEqualTo(Connection.Status.CONNECTED);
        }
        assertThat(server.messageCount(stream)).isEqualTo(100);
    }

    @Test
    void theBuilderNamesTheFieldAndTheLimit() {
        EventTypeRouting<String> routing = EventTypeRouting.<String>builder("NATS subject").defaultDestination("x")
                .build();
        assertThatThrownBy(() -> NatsOutboxPublisher.builder(connection).router(routing)
                .publishTimeout(Duration.ofSeconds(30)).acknowledgementTimeout(Duration.ofSeconds(30)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("publishTimeout must be below acknowledgementTimeout, was PT30S with "
                        + "acknowledgementTimeout PT30S");
        assertThatThrownBy(() -> NatsOutboxPublisher.builder(connection).publishTimeout(Duration.ZERO))
                .hasMessage("publishTimeout must be positive but was PT0S");
        assertThatThrownBy(() -> NatsOutboxPublisher.builder(connection).build())
                .hasMessageStartingWith("router is required");
    }
}
