package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.partition.PartitionHasher;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutboxRecordBuilderTest {

    private static final int MIB = 1024 * 1024;
    private static final String EMOJI = "😀"; // one code point, two UTF-16 units, four UTF-8 bytes

    private final MutableClock clock = new MutableClock(Instant.parse("2025-03-04T05:06:07.123456789Z"));

    private OutboxRecord.Builder valid() {
        return OutboxRecord.builder().aggregateId("order-1").eventType("OrderPlaced").payload("{\"id\":1}");
    }

    // ---------------------------------------------------------------- aggregateId / eventType

    @Test
    void nullAggregateIdIsRejectedNamingTheField() {
        assertThatThrownBy(() -> valid().aggregateId(null).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("aggregateId");
    }

    @Test
    void nullEventTypeIsRejectedNamingTheField() {
        assertThatThrownBy(() -> valid().eventType(null).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("eventType");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "   ", "\t", "\n \r", "\u2003"})
    void blankAggregateIdIsRejectedNamingTheField(String blank) {
        assertThatThrownBy(() -> valid().aggregateId(blank).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("aggregateId")
                .hasMessageContaining("blank");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\t\n"})
    void blankEventTypeIsRejectedNamingTheField(String blank) {
        assertThatThrownBy(() -> valid().eventType(blank).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("eventType")
                .hasMessageContaining("blank");
    }

    @Test
    void aggregateIdOfExactly255CharactersIsAccepted() {
        OutboxRecord record = valid().aggregateId("a".repeat(255)).build(clock);
        assertThat(record.getAggregateId()).hasSize(255);
    }

    @Test
    void aggregateIdOf256CharactersIsRejectedNamingFieldAndLimit() {
        assertThatThrownBy(() -> valid().aggregateId("a".repeat(256)).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("aggregateId")
                .hasMessageContaining("255").hasMessageContaining("256");
    }

    @Test
    void aggregateIdLengthCountsCodePointsNotUtf16Units() {
        String maxEmoji = EMOJI.repeat(255); // 510 UTF-16 units, 255 code points
        assertThat(maxEmoji).hasSize(510);

        OutboxRecord record = valid().aggregateId(maxEmoji).build(clock);
        assertThat(record.getAggregateId()).isEqualTo(maxEmoji);
        assertThat(record.getPartition()).isEqualTo(PartitionHasher.partitionOf(maxEmoji));

        assertThatThrownBy(() -> valid().aggregateId(EMOJI.repeat(256)).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("aggregateId")
                .hasMessageContaining("255");
    }

    @Test
    void eventTypeOfExactly255CodePointsIsAcceptedAnd256IsRejectedNamingFieldAndLimit() {
        assertThat(valid().eventType("E".repeat(255)).build(clock).getEventType()).hasSize(255);
        assertThat(valid().eventType("中".repeat(254) + EMOJI).build(clock).getEventType()).hasSize(256);

        assertThatThrownBy(() -> valid().eventType("E".repeat(256)).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("eventType")
                .hasMessageContaining("255");
        assertThatThrownBy(() -> valid().eventType(EMOJI.repeat(256)).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("eventType")
                .hasMessageContaining("255");
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc\uD800", "\uDC00abc", "a\uDC00\uD800b", "\uD83D"})
    void unpairedSurrogatesInAggregateIdAreRejected(String broken) {
        assertThatThrownBy(() -> valid().aggregateId(broken).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("aggregateId");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Type\uD800", "\uDFFFType"})
    void unpairedSurrogatesInEventTypeAreRejected(String broken) {
        assertThatThrownBy(() -> valid().eventType(broken).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("eventType");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"x\":\"\uD800\"}", "\uDC00", "ok" + "\uDBFF"})
    void unpairedSurrogatesInPayloadAreRejected(String broken) {
        assertThatThrownBy(() -> valid().payload(broken).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload");
    }

    // GH-12: PostgreSQL text cannot hold U+0000; it refused such a value at flush, failing the whole business
    // transaction, and only on PostgreSQL. The record refuses it when built, on every database alike.
    @ParameterizedTest
    @ValueSource(strings = {"\u0000", "order\u00001", "order-1\u0000"})
    void aNulCharacterInTheAggregateIdIsRejectedWhenBuilt(String withNul) {
        assertThatThrownBy(() -> valid().aggregateId(withNul).build(clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("aggregateId").hasMessageContaining("U+0000");
    }

    @Test
    void aNulCharacterInTheEventTypeOrHandlerIdIsRejectedWhenBuilt() {
        assertThatThrownBy(() -> valid().eventType("Order\u0000Placed").build(clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("eventType").hasMessageContaining("U+0000");
        assertThatThrownBy(() -> valid().handlerId("mailer\u0000").build(clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("handlerId").hasMessageContaining("U+0000");
    }

    @Test
    void aNulCharacterInARawPayloadIsRejectedWhenBuiltNamingItsPosition() {
        assertThatThrownBy(() -> valid().payload("{\"name\":\"a\u0000b\"}").build(clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("payload").hasMessageContaining("U+0000").hasMessageContaining("index 10");
    }

    @Test
    void anEscapedNulInJsonIsOrdinaryText() {
        assertThat(valid().payload("{\"name\":\"a\\u0000b\"}").build(clock).getPayload())
                .isEqualTo("{\"name\":\"a\\u0000b\"}");
    }

    @Test
    void aTraceContextWithANulCharacterIsRefusedButRowsReadBackAreTakenAsStored() {
        OutboxRecord record = valid().build(clock);
        assertThatThrownBy(() -> record.withTraceContext("00-\u0000"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("traceContext");
        // A row written by an earlier version on a database that kept U+0000 must stay processable.
        OutboxRecord row = OutboxRecord.restore().id("row-1").aggregateId("a\u0000").eventType("E").payload("\u0000")
                .createdAt(clock.instant()).lastError("boom\u0000").build();
        assertThat(row.getAggregateId()).isEqualTo("a\u0000");
        assertThat(row.getLastError()).isEqualTo("boom\u0000");
    }

    // ---------------------------------------------------------------- payload

    @Test
    void nullPayloadIsRejectedNamingTheField() {
        assertThatThrownBy(() -> valid().payload(null).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload");
    }

    @Test
    void emptyPayloadIsAccepted() {
        assertThat(valid().payload("").build(clock).getPayload()).isEmpty();
    }

    @Test
    void payloadOfExactlyOneMebibyteIsAccepted() {
        String payload = "x".repeat(MIB);
        assertThat(OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES).isEqualTo(1_048_576);

        assertThat(valid().payload(payload).build(clock).getPayload()).isSameAs(payload);
    }

    @Test
    void payloadOneByteOverOneMebibyteIsRejectedNamingFieldAndLimit() {
        assertThatThrownBy(() -> valid().payload("x".repeat(MIB + 1)).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload")
                .hasMessageContaining("1048576").hasMessageContaining("1048577");
    }

    @Test
    void payloadLimitCountsUtf8BytesOfMultiByteCharacters() {
        String twoByte = "é".repeat(MIB / 2); // 524,288 characters, 1 MiB
        String fourByte = EMOJI.repeat(MIB / 4); // 262,144 code points, 1 MiB
        String threeByte = "中".repeat(349_525) + "x"; // 1,048,575 + 1 bytes
        assertThat(twoByte.getBytes(StandardCharsets.UTF_8)).hasSize(MIB);
        assertThat(fourByte.getBytes(StandardCharsets.UTF_8)).hasSize(MIB);
        assertThat(threeByte.getBytes(StandardCharsets.UTF_8)).hasSize(MIB);

        assertThatCode(() -> valid().payload(twoByte).build(clock)).doesNotThrowAnyException();
        assertThatCode(() -> valid().payload(fourByte).build(clock)).doesNotThrowAnyException();
        assertThatCode(() -> valid().payload(threeByte).build(clock)).doesNotThrowAnyException();

        assertThatThrownBy(() -> valid().payload(twoByte + "x").build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1048577")
                .hasMessageContaining("1048576");
        assertThatThrownBy(() -> valid().payload(fourByte + "x").build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1048577");
        // Fewer characters than the limit, but more bytes.
        String sixHundredThousandTwoByte = "é".repeat(600_000);
        assertThat(sixHundredThousandTwoByte.length()).isLessThan(MIB);
        assertThatThrownBy(() -> valid().payload(sixHundredThousandTwoByte).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload")
                .hasMessageContaining("1200000").hasMessageContaining("1048576");
    }

    @Test
    void customMaxPayloadBytesIsApplied() {
        assertThat(valid().payload("0123456789").maxPayloadBytes(10).build(clock).getPayload()).hasSize(10);
        assertThat(valid().payload("ééééé").maxPayloadBytes(10).build(clock).getPayload()).hasSize(5);

        assertThatThrownBy(() -> valid().payload("0123456789A").maxPayloadBytes(10).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload")
                .hasMessageContaining("limit is 10 bytes");
        assertThatThrownBy(() -> valid().payload("éééééx").maxPayloadBytes(10).build(clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("11 bytes");
        // A larger custom limit lets through what the default refuses.
        assertThatCode(() -> valid().payload("x".repeat(MIB + 1)).maxPayloadBytes(2 * MIB).build(clock))
                .doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void nonPositiveMaxPayloadBytesIsRejectedNamingTheSetting(int limit) {
        assertThatThrownBy(() -> valid().maxPayloadBytes(limit))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outbox.max-payload-size must be >= 1 byte but was")
                .hasMessageContaining(String.valueOf(limit));
    }

    @Test
    void nullClockIsRejected() {
        assertThatThrownBy(() -> valid().build(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("clock");
    }

    // ---------------------------------------------------------------- the built record

    @Test
    void builtRecordIsNewAndDueAtTheClockInstant() {
        OutboxRecord record = valid().build(clock);

        assertThat(record.getAggregateId()).isEqualTo("order-1");
        assertThat(record.getEventType()).isEqualTo("OrderPlaced");
        assertThat(record.getPayload()).isEqualTo("{\"id\":1}");
        assertThat(record.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(record.getRetryCount()).isZero();
        assertThat(record.getCreatedAt()).isEqualTo(clock.instant());
        assertThat(record.getNextRetryAt()).isEqualTo(clock.instant());
        assertThat(record.getCompletedAt()).isNull();
        assertThat(record.getLastError()).isNull();
        assertThat(record.getSequence()).isNull();
    }

    @Test
    void builtRecordPartitionIsTheHashOfItsAggregateId() {
        for (String aggregateId : List.of("hello", "order-1", "客户-7", EMOJI, "x".repeat(255))) {
            OutboxRecord record = valid().aggregateId(aggregateId).build(clock);
            assertThat(record.getPartition()).as(aggregateId).isEqualTo(PartitionHasher.partitionOf(aggregateId));
        }
        assertThat(valid().aggregateId("hello").build(clock).getPartition()).isEqualTo(71);
    }

    @Test
    void idIsAVersion7UuidCarryingTheClockMillis() {
        OutboxRecord record = valid().build(clock);
        UUID uuid = UUID.fromString(record.getId());

        assertThat(uuid.toString()).isEqualTo(record.getId());
        assertThat(uuid.version()).isEqualTo(7);
        assertThat(uuid.variant()).isEqualTo(2);
        assertThat(uuid.getMostSignificantBits() >>> 16).isEqualTo(clock.instant().toEpochMilli());
    }

    @Test
    void idsAreUniqueEvenWithinOneMillisecond() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            ids.add(valid().build(clock).getId());
        }
        assertThat(ids).hasSize(20_000);
    }

    @Test
    void idsIncreaseWithTime() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            ids.add(valid().build(clock).getId());
            clock.advance(Duration.ofMillis(1 + i % 3));
        }
        assertThat(ids).isSortedAccordingTo(String::compareTo).doesNotHaveDuplicates();
        List<UUID> uuids = ids.stream().map(UUID::fromString).toList();
        for (int i = 1; i < uuids.size(); i++) {
            assertThat(Long.compareUnsigned(uuids.get(i - 1).getMostSignificantBits(),
                    uuids.get(i).getMostSignificantBits())).isNegative();
        }
    }

    // ---------------------------------------------------------------- restore

    @Test
    void toBuilderRoundTripKeepsEveryField() {
        OutboxRecord full = OutboxRecord.restore()
                .id("0190c1d2-0000-7000-8000-000000000001")
                .aggregateId("客户-7")
                .eventType("CustomerMoved")
                .payload("{\"city\":\"Zürich\"}")
                .createdAt(Instant.parse("2025-01-01T00:00:00.000001Z"))
                .status(OutboxRecordStatus.COMPLETED)
                .completedAt(Instant.parse("2025-01-01T00:00:05Z"))
                .retryCount(2)
                .nextRetryAt(Instant.parse("2025-01-01T00:00:03Z"))
                .sequence(42L)
                .lastError("java.io.IOException: broker down")
                .build();

        OutboxRecord copy = full.toBuilder().build();

        assertThat(copy).usingRecursiveComparison().isEqualTo(full);
        assertThat(copy.getPartition()).isEqualTo(PartitionHasher.partitionOf("客户-7"));
        assertThat(copy.getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(copy.getRetryCount()).isEqualTo(2);
        assertThat(copy.getSequence()).isEqualTo(42L);
        assertThat(copy.getLastError()).isEqualTo("java.io.IOException: broker down");
        assertThat(copy).isEqualTo(full).hasSameHashCodeAs(full);
    }

    @Test
    void toBuilderRoundTripOfABuiltRecord() {
        OutboxRecord built = valid().build(clock);
        assertThat(built.toBuilder().build()).usingRecursiveComparison().isEqualTo(built);
        OutboxRecord changed = built.toBuilder().retryCount(1).lastError("boom").build();
        assertThat(changed.getRetryCount()).isEqualTo(1);
        assertThat(changed.getLastError()).isEqualTo("boom");
        assertThat(changed.getId()).isEqualTo(built.getId());
        assertThat(built.getRetryCount()).as("original is immutable").isZero();
    }

    @Test
    void restoreComputesAMissingPartitionAndDefaultsNextRetryAtToCreatedAt() {
        Instant created = Instant.parse("2025-01-01T00:00:00Z");
        OutboxRecord record = OutboxRecord.restore().id("id-1").aggregateId("hello").eventType("T").payload("p")
                .createdAt(created).build();

        assertThat(record.getPartition()).isEqualTo(71);
        assertThat(record.getNextRetryAt()).isEqualTo(created);
        assertThat(record.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
    }

    @Test
    void restoreRejectsAPartitionThatDoesNotMatchTheAggregateId() {
        int wrong = (PartitionHasher.partitionOf("hello") + 1) % 256;
        assertThatThrownBy(() -> OutboxRecord.restore().id("id-1").aggregateId("hello").eventType("T").payload("p")
                .createdAt(Instant.EPOCH).partition(wrong).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partition")
                .hasMessageContaining(String.valueOf(wrong)).hasMessageContaining("71");
        assertThatThrownBy(() -> valid().build(clock).toBuilder().aggregateId("another-aggregate").build())
                .as("changing the aggregate id of a record keeps the old partition, which no longer matches")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partition");
    }

    @Test
    void restoreRejectsMissingRequiredFieldsAndNegativeRetryCount() {
        assertThatThrownBy(() -> valid().build(clock).toBuilder().id(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("id");
        assertThatThrownBy(() -> valid().build(clock).toBuilder().createdAt(null).nextRetryAt(Instant.EPOCH).build())
                .isInstanceOf(NullPointerException.class).hasMessageContaining("createdAt");
        assertThatThrownBy(() -> valid().build(clock).toBuilder().retryCount(-1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retryCount")
                .hasMessageContaining("-1");
    }

    // ---------------------------------------------------------------- the Outbox façade

    record OrderPlaced(String orderId, long cents) {
    }

    @Nested
    class OutboxFacade {

        private final InMemoryRecordStore store = new InMemoryRecordStore();
        private final AtomicInteger serializations = new AtomicInteger();
        private final PayloadSerializer serializer = event -> {
            serializations.incrementAndGet();
            OrderPlaced order = (OrderPlaced) event;
            return "{\"orderId\":\"" + order.orderId() + "\",\"cents\":" + order.cents() + "}";
        };

        @Test
        void scheduleSerializesTheEventUsesTheSimpleClassNameAndSavesThroughTheRepository() {
            Outbox outbox = Outbox.builder().repository(store).serializer(serializer).clock(clock).build();

            OutboxRecord scheduled = outbox.schedule(new OrderPlaced("o-1", 1999), "order-o-1");

            assertThat(scheduled.getEventType()).isEqualTo("OrderPlaced");
            assertThat(scheduled.getPayload()).isEqualTo("{\"orderId\":\"o-1\",\"cents\":1999}");
            assertThat(scheduled.getAggregateId()).isEqualTo("order-o-1");
            assertThat(scheduled.getCreatedAt()).isEqualTo(clock.instant());
            assertThat(scheduled.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
            assertThat(serializations).hasValue(1);

            OutboxRecord stored = store.findById(scheduled.getId()).orElseThrow();
            assertThat(stored.getEventType()).isEqualTo("OrderPlaced");
            assertThat(stored.getPayload()).isEqualTo(scheduled.getPayload());
            assertThat(stored.getAggregateId()).isEqualTo("order-o-1");
            assertThat(stored.getPartition()).isEqualTo(PartitionHasher.partitionOf("order-o-1"));
            assertThat(stored.getSequence()).isNotNull();
            assertThat(store.countByStatus(OutboxRecordStatus.NEW)).isEqualTo(1);
        }

        @Test
        void scheduleWithExplicitEventTypeOrCustomResolverUsesIt() {
            Outbox outbox = Outbox.builder().repository(store).serializer(serializer).clock(clock)
                    .eventTypeResolver(event -> "orders." + event.getClass().getSimpleName()).build();

            OutboxRecord resolved = outbox.schedule(new OrderPlaced("o-2", 5), "order-o-2");
            OutboxRecord explicit = outbox.schedule(new OrderPlaced("o-3", 5), "order-o-3", "order.placed.v2");

            assertThat(resolved.getEventType()).isEqualTo("orders.OrderPlaced");
            assertThat(explicit.getEventType()).isEqualTo("order.placed.v2");
            assertThat(store.findByAggregateId("order-o-3")).singleElement()
                    .extracting(OutboxRecord::getEventType).isEqualTo("order.placed.v2");
        }

        @Test
        void payloadOverTheFacadeLimitIsRejectedAndNothingIsSaved() {
            Outbox outbox = Outbox.builder().repository(store).serializer(event -> "x".repeat(65)).clock(clock)
                    .maxPayloadBytes(64).build();

            assertThatThrownBy(() -> outbox.schedule(new OrderPlaced("o-4", 1), "order-o-4"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload")
                    .hasMessageContaining("64");
            assertThat(store.all()).isEmpty();
            assertThat(store.countByStatus(OutboxRecordStatus.NEW)).isZero();

            Outbox exactLimit = Outbox.builder().repository(store).serializer(event -> "x".repeat(64)).clock(clock)
                    .maxPayloadBytes(64).build();
            exactLimit.schedule(new OrderPlaced("o-5", 1), "order-o-5");
            assertThat(store.all()).hasSize(1);
        }

        @Test
        void facadeDefaultLimitIsOneMebibyte() {
            Outbox outbox = Outbox.builder().repository(store).serializer(event -> "y".repeat(MIB + 1)).build();
            assertThatThrownBy(() -> outbox.schedule(new OrderPlaced("o-6", 1), "order-o-6"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1048576");
            assertThat(store.all()).isEmpty();
        }

        @Test
        void invalidAggregateIdIsRejectedAndNothingIsSaved() {
            Outbox outbox = Outbox.builder().repository(store).serializer(serializer).build();
            assertThatThrownBy(() -> outbox.schedule(new OrderPlaced("o-7", 1), " "))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("aggregateId");
            assertThat(store.all()).isEmpty();
        }

        @Test
        void nullEventIsRejected() {
            Outbox outbox = Outbox.builder().repository(store).serializer(serializer).build();
            assertThatThrownBy(() -> outbox.schedule(null, "order-1")).isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("event");
            assertThat(serializations).hasValue(0);
            assertThat(store.all()).isEmpty();
        }

        @Test
        void buildWithoutRepositoryOrSerializerIsAnIllegalStateException() {
            assertThatThrownBy(() -> Outbox.builder().serializer(serializer).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("repository");
            assertThatThrownBy(() -> Outbox.builder().repository(store).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("serializer");
            assertThatThrownBy(() -> Outbox.builder().build()).isInstanceOf(IllegalStateException.class);
        }

        @Test
        void facadeMaxPayloadBytesMustBePositive() {
            assertThatThrownBy(() -> Outbox.builder().maxPayloadBytes(0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outbox.max-payload-size must be >= 1 byte but was");
        }
    }

    // ---------------------------------------------------------------- headers

    @Nested
    class Headers {

        @Test
        void headersAreKeptInTheirOrderAndUnmodifiable() {
            OutboxRecord record = valid().header("tenant", "acme").headers(Map.of("correlation-id", "c-1"))
                    .header("schema.version", "2").build(clock);
            assertThat(record.getHeaders()).containsExactly(Map.entry("tenant", "acme"),
                    Map.entry("correlation-id", "c-1"), Map.entry("schema.version", "2"));
            assertThatThrownBy(() -> record.getHeaders().put("x", "y"))
                    .isInstanceOf(UnsupportedOperationException.class);
            assertThat(valid().build(clock).getHeaders()).isEmpty();
        }

        @ParameterizedTest
        @ValueSource(strings = {"", "-leading", "has space", "colon:", "ümlaut",
            "x12345678901234567890123456789012345678901234567890123456789012345"})
        void aNameOutsideThePatternIsRefusedNamingIt(String name) {
            assertThatThrownBy(() -> valid().header(name, "v").build(clock))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("headers: the name '" + name + "' is not 1 to 64 characters of A-Z a-z 0-9 . _ - "
                            + "starting with a letter or digit");
        }

        @Test
        void aNameOf64CharactersIsAccepted() {
            String name = "n" + "x".repeat(63);
            assertThat(valid().header(name, "v").build(clock).getHeaders()).containsKey(name);
        }

        @Test
        void moreThan32HeadersAreRefused() {
            OutboxRecord.Builder builder = valid();
            for (int n = 0; n < 32; n++) {
                builder.header("h" + n, "v");
            }
            assertThat(builder.build(clock).getHeaders()).hasSize(32);
            assertThatThrownBy(() -> builder.header("h32", "v").build(clock))
                    .hasMessage("headers has 33 entries; the limit is 32");
        }

        @Test
        void aNullValueOrOneWithUPlus0000IsRefusedNamingTheHeader() {
            Map<String, String> withNull = new HashMap<>();
            withNull.put("tenant", null);
            assertThatThrownBy(() -> valid().headers(withNull).build(clock))
                    .hasMessage("headers: the value of 'tenant' must not be null");
            assertThatThrownBy(() -> valid().header("tenant", "a\u0000b").build(clock))
                    .hasMessageStartingWith("headers.tenant contains the character U+0000 (at index 1)");
        }

        @Test
        void headersOverTheStoredLimitAreRefusedAndUpToItAccepted() {
            // "note=" + value: 5 characters, the value ASCII so stored as it is
            assertThat(valid().header("note", "v".repeat(3995)).build(clock).getHeaders()).hasSize(1);
            assertThatThrownBy(() -> valid().header("note", "v".repeat(3996)).build(clock))
                    .hasMessage("headers take 4001 characters as stored; the limit is 4000");
            // a space is stored as '+', a '&' as three characters
            assertThatThrownBy(() -> valid().header("note", "&".repeat(1332)).build(clock))
                    .hasMessage("headers take 4001 characters as stored; the limit is 4000");
        }

        @Test
        void withHeadersAddsOnlyWhatTheRecordDoesNotHave() {
            OutboxRecord record = valid().header("tenant", "acme").build(clock);
            OutboxRecord more = record.withHeaders(Map.of("tenant", "other", "correlation-id", "c-9"));
            assertThat(more.getHeaders()).containsExactly(Map.entry("tenant", "acme"),
                    Map.entry("correlation-id", "c-9"));
            assertThat(more.getId()).isEqualTo(record.getId());
            assertThat(record.withHeaders(Map.of("tenant", "x"))).isSameAs(record);
            assertThatThrownBy(() -> record.withHeaders(Map.of("bad name", "x")))
                    .hasMessageContaining("the name 'bad name'");
        }
    }

    @Test
    void withEpochKeepsEveryOtherFieldAndRefusesANegativeEpoch() {
        OutboxRecord record = OutboxRecord.restore().id("r-1").sequence(42L).status(OutboxRecordStatus.NEW)
                .aggregateId("order-1").eventType("OrderPlaced").payload("{}").createdAt(clock.instant())
                .completedAt(clock.instant().plusSeconds(1)).retryCount(2).nextRetryAt(clock.instant().plusSeconds(5))
                .lastError("boom").traceContext("00-trace").handlerId("h").headers(Map.of("tenant", "t-1"))
                .firstDeferredAt(clock.instant().minusSeconds(3)).epoch(1).build();

        OutboxRecord delivered = record.withEpoch(7);

        assertThat(delivered.getEpoch()).isEqualTo(7);
        assertThat(delivered).usingRecursiveComparison().ignoringFields("epoch").isEqualTo(record);
        assertThat(record.getEpoch()).as("the original is unchanged").isEqualTo(1);
        assertThat(record.withEpoch(1)).isSameAs(record);
        assertThatThrownBy(() -> record.withEpoch(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("epoch must be >= 0 but was -1");
    }
}
