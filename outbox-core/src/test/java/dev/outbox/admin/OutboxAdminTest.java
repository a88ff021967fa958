package dev.outbox.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class OutboxAdminTest {

    private final MutableClock clock = MutableClock.startingNow();
    private final InMemoryRecordStore store = new InMemoryRecordStore();
    private final AtomicInteger wakeUps = new AtomicInteger();
    private final OutboxAdmin admin = OutboxAdmin.builder().store(store).clock(clock)
            .afterChange(wakeUps::incrementAndGet).build();

    @Test
    void aRetryMakesTheRecordDueNowAndWakesTheProcessorOnlyWhenSomethingChanged() {
        OutboxRecord failed = failed("A");
        clock.advance(Duration.ofMinutes(3));

        assertThat(admin.retry(failed.getId())).isTrue();
        assertThat(admin.retry(failed.getId())).as("already NEW").isFalse();
        assertThat(admin.retryAll(FailedRecordFilter.any())).isZero();

        OutboxRecord stored = store.findById(failed.getId()).orElseThrow();
        assertThat(stored.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(stored.getNextRetryAt()).isEqualTo(clock.instant());
        assertThat(wakeUps).hasValue(1);
    }

    @Test
    void badInputIsRefusedNamingTheArgument() {
        assertThatThrownBy(() -> admin.retry(" ")).hasMessage("recordId must not be blank");
        assertThatThrownBy(() -> admin.failedRecords(FailedRecordFilter.any(), 0))
                .hasMessage("limit must be between 1 and 1000 but was 0");
    }

    /** Issue 29: values no record's field can hold never reach the store, whichever caller sends them. */
    @Test
    void aFilterValueNoRecordCanHoldIsRefusedNamingTheParameterAndNothingChanges() {
        OutboxRecord failed = failed("A");
        String tooLong = "x".repeat(OutboxRecord.MAX_EVENT_TYPE_LENGTH + 1);
        Map<String, Function<String, FailedRecordFilter>> criteria = Map.of(
                "eventType", value -> FailedRecordFilter.any().withEventType(value),
                "aggregateId", value -> FailedRecordFilter.any().withAggregateId(value),
                "handlerId", value -> FailedRecordFilter.any().withHandlerId(value));

        criteria.forEach((parameter, filterOf) -> {
            assertThatThrownBy(() -> admin.retryAll(filterOf.apply("A\u0000")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(parameter + " contains the character U+0000 (at index 1)");
            assertThatThrownBy(() -> admin.retryAll(filterOf.apply("A\uD800")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(parameter + " is not valid UTF-16 text");
            assertThatThrownBy(() -> admin.retryAll(filterOf.apply("\uDC00A")))
                    .hasMessageStartingWith(parameter + " is not valid UTF-16 text");
            assertThatThrownBy(() -> admin.retryAll(filterOf.apply(tooLong)))
                    .hasMessage(parameter + " is 256 characters long; the limit is 255 characters");
            assertThatThrownBy(() -> admin.retryAll(filterOf.apply(" ")))
                    .hasMessage(parameter + " must not be blank");
            assertThatThrownBy(() -> admin.failedRecords(filterOf.apply("A\u0000"), 10))
                    .hasMessageStartingWith(parameter + " contains the character U+0000");
            assertThatThrownBy(() -> admin.failedRecords(filterOf.apply("\uD800"), 10))
                    .hasMessageStartingWith(parameter + " is not valid UTF-16 text");
        });

        assertThat(store.findById(failed.getId()).orElseThrow().getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(wakeUps).hasValue(0);
        assertThat(admin.retryAll(FailedRecordFilter.any().withEventType("E".repeat(255)))).as("at the limit").isZero();
        assertThat(admin.retryAll(FailedRecordFilter.any().withAggregateId("A").withEventType("E"))).isOne();
    }

    @Test
    void aRecordIdNoRecordCanHaveIsRefusedNamingTheParameterAndNothingChanges() {
        OutboxRecord failed = failed("A");
        String tooLong = "r".repeat(OutboxRecord.MAX_ID_LENGTH + 1);
        List<Consumer<String>> operations = List.of(admin::retry, admin::skip, admin::delete);

        for (Consumer<String> operation : operations) {
            assertThatThrownBy(() -> operation.accept(failed.getId() + "\u0000"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("recordId contains the character U+0000 (at index 36)");
            assertThatThrownBy(() -> operation.accept("\uD800" + failed.getId()))
                    .hasMessageStartingWith("recordId is not valid UTF-16 text");
            assertThatThrownBy(() -> operation.accept(tooLong))
                    .hasMessage("recordId is 65 characters long; the limit is 64 characters");
        }

        assertThat(store.findById(failed.getId()).orElseThrow().getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(wakeUps).hasValue(0);
    }

    @Test
    void aRefusalDoesNotRepeatAHugeValue() {
        String huge = "\u0000".repeat(10 * 1024 * 1024);

        assertThatThrownBy(() -> admin.retryAll(FailedRecordFilter.any().withHandlerId("h" + huge)))
                .hasMessageStartingWith("handlerId is 10485761 characters long; the limit is 255")
                .satisfies(refusal -> assertThat(refusal.getMessage()).hasSizeLessThan(200));
        assertThatThrownBy(() -> admin.retry(huge))
                .satisfies(refusal -> assertThat(refusal.getMessage()).startsWith("recordId is 10485760 characters long; "
                        + "the limit is 64 characters").hasSizeLessThan(200));
    }

    private OutboxRecord failed(String aggregateId) {
        OutboxRecord record = OutboxRecord.builder().aggregateId(aggregateId).eventType("E").payload("{}")
                .build(clock);
        store.save(record);
        assertThat(store.markFailed(Delivery.unfenced(store.findById(record.getId()).orElseThrow()), 3, "gave up")).isTrue();
        return record;
    }
}
