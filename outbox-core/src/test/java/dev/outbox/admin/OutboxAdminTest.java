package dev.outbox.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.spi.FailedRecordOrder;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
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
                "handlerId", value -> FailedRecordFilter.any().withHandlerId(value),
                "errorContains", value -> FailedRecordFilter.any().withErrorContaining(value));

        criteria.forEach((parameter, filterOf) -> {
            assertThatThrownBy(() -> admin.retryAll(filterOf.apply("A\u0000")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(parameter + " contains the character U+0000 (at index 1)");
            assertThatThrownBy(() -> admin.retryAll(filterOf.apply("A\uD800")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(parameter + " is not valid UTF-16 text");
            assertThatThrownBy(() -> admin.retryAll(filterOf.apply("\uDC00A")))
                    .hasMessageStartingWith(parameter + " is not valid UTF-16 text");
            if (!parameter.equals("errorContains")) {
                assertThatThrownBy(() -> admin.retryAll(filterOf.apply(tooLong)))
                        .hasMessage(parameter + " is 256 characters long; the limit is 255 characters");
            }
            assertThatThrownBy(() -> admin.retryAll(filterOf.apply(" ")))
                    .hasMessage(parameter + " must not be blank");
            assertThatThrownBy(() -> admin.failedRecords(filterOf.apply("A\u0000"), 10))
                    .hasMessageStartingWith(parameter + " contains the character U+0000");
            assertThatThrownBy(() -> admin.failedRecords(filterOf.apply("\uD800"), 10))
                    .hasMessageStartingWith(parameter + " is not valid UTF-16 text");
            assertThatThrownBy(() -> admin.skipAll(filterOf.apply(" "))).hasMessage(parameter + " must not be blank");
            assertThatThrownBy(() -> admin.deleteAll(filterOf.apply("A\u0000")))
                    .hasMessageStartingWith(parameter + " contains the character U+0000");
            assertThatThrownBy(() -> admin.countFailed(filterOf.apply(" ")))
                    .hasMessage(parameter + " must not be blank");
            assertThatThrownBy(() -> admin.failedPage(filterOf.apply(" "), FailedRecordOrder.OLDEST_FIRST, null, 10))
                    .hasMessage(parameter + " must not be blank");
        });

        assertThat(store.findById(failed.getId()).orElseThrow().getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(wakeUps).hasValue(0);
        assertThat(admin.retryAll(FailedRecordFilter.any().withEventType("E".repeat(255)))).as("at the limit").isZero();
        assertThatThrownBy(() -> admin.skipAll(FailedRecordFilter.any().withErrorContaining("e".repeat(2001))))
                .hasMessage("errorContains is 2001 characters long; the limit is 2000 characters");
        assertThat(store.findById(failed.getId()).orElseThrow().getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(admin.skipAll(FailedRecordFilter.any().withErrorContaining("e".repeat(2000)))).as("at the limit")
                .isZero();
        assertThat(admin.retryAll(FailedRecordFilter.any().withAggregateId("A").withEventType("E"))).isOne();
    }

    @Test
    void errorContainsMatchesAnyPartOfTheLastErrorWithoutRegardToCase() {
        OutboxRecord broker = failed("A", "java.io.IOException: Broker DOWN");
        failed("B", "java.lang.IllegalStateException: no");

        assertThat(admin.failedRecords(FailedRecordFilter.any().withErrorContaining("broker down"), 10))
                .extracting(OutboxRecord::getId).containsExactly(broker.getId());
        assertThat(admin.countFailed(FailedRecordFilter.any().withErrorContaining("EXCEPTION"))).isEqualTo(2);
        assertThat(admin.countFailed(FailedRecordFilter.any().withErrorContaining("timeout"))).isZero();
    }

    @Test
    void lastAttemptDueBoundsSelectByWhenTheFailedAttemptFellDue() {
        OutboxRecord early = failed("A", "gave up");
        clock.advance(Duration.ofHours(1));
        OutboxRecord late = failed("B", "gave up");
        Instant middle = clock.instant().minus(Duration.ofMinutes(30));

        assertThat(admin.failedRecords(FailedRecordFilter.any().lastAttemptDueBetween(middle, null), 10))
                .extracting(OutboxRecord::getId).containsExactly(late.getId());
        assertThat(admin.failedRecords(FailedRecordFilter.any().lastAttemptDueBetween(null, middle), 10))
                .extracting(OutboxRecord::getId).containsExactly(early.getId());
        assertThat(admin.countFailed(FailedRecordFilter.any().lastAttemptDueBetween(null, early.getNextRetryAt())))
                .as("the upper bound is exclusive").isZero();
    }

    @Test
    void aPageStartsAfterItsCursorAndTheLastOneHasNone() {
        OutboxRecord first = failed("A", "gave up");
        OutboxRecord second = failed("B", "gave up");
        OutboxRecord third = failed("C", "gave up");

        FailedRecordPage page = admin.failedPage(FailedRecordFilter.any(), FailedRecordOrder.NEWEST_FIRST, null, 2);
        assertThat(page.records()).extracting(OutboxRecord::getId).containsExactly(third.getId(), second.getId());
        assertThat(page.nextCursor()).isEqualTo(Long.toString(second.getSequence()));
        FailedRecordPage last = admin.failedPage(FailedRecordFilter.any(), FailedRecordOrder.NEWEST_FIRST,
                page.nextCursor(), 2);
        assertThat(last.records()).extracting(OutboxRecord::getId).containsExactly(first.getId());
        assertThat(last.nextCursor()).isNull();
    }

    @Test
    void aCursorNoPageGaveAndABadLimitAreRefusedNamingTheParameter() {
        for (String cursor : List.of("", "abc", "-1", "1.5", "99999999999999999999", "9223372036854775808", " 1")) {
            assertThatThrownBy(() -> admin.failedPage(FailedRecordFilter.any(), FailedRecordOrder.OLDEST_FIRST,
                    cursor, 10)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("after must be the nextCursor of a page of FAILED records");
        }
        assertThatThrownBy(() -> admin.failedPage(FailedRecordFilter.any(), FailedRecordOrder.OLDEST_FIRST, "1", 1001))
                .hasMessage("limit must be between 1 and 1000 but was 1001");
        assertThat(admin.failedPage(FailedRecordFilter.any(), FailedRecordOrder.OLDEST_FIRST,
                "9223372036854775807", 10).records()).isEmpty();
    }

    @Test
    void bulkSkipAndDeleteWakeTheProcessorOnlyWhenSomethingChanged() {
        OutboxRecord a = failed("A", "gave up");
        OutboxRecord b = failed("B", "gave up");

        assertThat(admin.skipAll(FailedRecordFilter.any().withAggregateId("A"))).isOne();
        assertThat(wakeUps).hasValue(1);
        assertThat(admin.skipAll(FailedRecordFilter.any().withAggregateId("A"))).isZero();
        assertThat(admin.deleteAll(FailedRecordFilter.any().withAggregateId("A"))).as("SKIPPED stays").isZero();
        assertThat(wakeUps).hasValue(1);
        assertThat(store.findById(a.getId()).orElseThrow().getStatus()).isEqualTo(OutboxRecordStatus.SKIPPED);
        assertThat(admin.deleteAll(FailedRecordFilter.any())).isOne();
        assertThat(store.findById(b.getId())).isEmpty();
        assertThat(wakeUps).hasValue(2);
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
        return failed(aggregateId, "gave up");
    }

    private OutboxRecord failed(String aggregateId, String error) {
        OutboxRecord record = OutboxRecord.builder().aggregateId(aggregateId).eventType("E").payload("{}")
                .build(clock);
        store.save(record);
        OutboxRecord stored = store.findById(record.getId()).orElseThrow();
        assertThat(store.markFailed(Delivery.unfenced(stored), 3, error)).isTrue();
        return store.findById(record.getId()).orElseThrow();
    }
}
