package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Records that must not be processed before a time, and the records of their aggregate that wait behind them. */
class DelayedDeliveryTest {

    private final MutableClock clock = MutableClock.startingNow();
    private final InMemoryRecordStore store = new InMemoryRecordStore();
    private final List<String> handled = new CopyOnWriteArrayList<>();
    private final Outbox outbox = Outbox.builder().repository(store).serializer(String::valueOf).clock(clock).build();
    private final OutboxProcessor processor = OutboxProcessor.builder().recordStore(store)
            .handler(record -> handled.add(record.getPayload())).clock(clock).build();

    @AfterEach
    void close() {
        processor.close();
    }

    @Test
    void aDelayedRecordAndTheLaterRecordsOfItsAggregateWaitWhileOtherAggregatesGoOn() {
        outbox.scheduleAfter("a1 delayed", "A", Duration.ofSeconds(30));
        outbox.schedule("a2", "A");
        outbox.schedule("b1", "B");

        assertThat(processor.processDueRecords()).isEqualTo(1);
        assertThat(handled).containsExactly("b1");

        clock.advance(Duration.ofSeconds(30).minusMillis(1));
        assertThat(processor.processDueRecords()).as("1 ms early").isZero();

        clock.advance(Duration.ofMillis(1));
        assertThat(processor.processDueRecords()).isEqualTo(2);
        assertThat(handled).containsExactly("b1", "a1 delayed", "a2");
    }

    @Test
    void scheduleAtTakesAnInstantAndThePastMeansAtOnce() {
        Instant inOneHour = clock.instant().plus(Duration.ofHours(1));
        OutboxRecord later = outbox.scheduleAt("later", "A", inOneHour);
        OutboxRecord past = outbox.scheduleAt("past", "B", clock.instant().minusSeconds(5));

        assertThat(later.getNextRetryAt()).isEqualTo(inOneHour);
        assertThat(later.getCreatedAt()).isEqualTo(clock.instant());
        assertThat(past.getNextRetryAt()).isEqualTo(clock.instant());
        assertThat(processor.processDueRecords()).isEqualTo(1);
        assertThat(handled).containsExactly("past");
    }

    @Test
    void aNegativeDelayIsRefusedNamingTheField() {
        assertThatThrownBy(() -> outbox.scheduleAfter("x", "A", Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("deliverAfter must not be negative but was PT-1S");
        assertThat(store.all()).as("nothing written").isEmpty();
    }

    @Test
    void theLastOfDeliverAfterAndAvailableAtCounts() {
        Instant at = clock.instant().plusSeconds(100);
        OutboxRecord record = OutboxRecord.builder().aggregateId("A").eventType("E").payload("{}")
                .deliverAfter(Duration.ofSeconds(5)).availableAt(at).build(clock);
        OutboxRecord other = OutboxRecord.builder().aggregateId("A").eventType("E").payload("{}")
                .availableAt(at).deliverAfter(Duration.ofSeconds(5)).build(clock);

        assertThat(record.getNextRetryAt()).isEqualTo(at);
        assertThat(other.getNextRetryAt()).isEqualTo(clock.instant().plusSeconds(5));
        assertThat(record.getRetryCount()).isZero();
    }
}
