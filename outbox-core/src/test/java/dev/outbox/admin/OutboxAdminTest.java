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
import java.util.concurrent.atomic.AtomicInteger;
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

    private OutboxRecord failed(String aggregateId) {
        OutboxRecord record = OutboxRecord.builder().aggregateId(aggregateId).eventType("E").payload("{}")
                .build(clock);
        store.save(record);
        assertThat(store.markFailed(Delivery.unfenced(store.findById(record.getId()).orElseThrow()), 3, "gave up")).isTrue();
        return record;
    }
}
