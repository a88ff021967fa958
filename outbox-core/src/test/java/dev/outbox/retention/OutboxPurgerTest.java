package dev.outbox.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.spi.Delivery;
import dev.outbox.testing.AggregateIds;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class OutboxPurgerTest {

    private final MutableClock clock = MutableClock.startingNow();
    private final InMemoryRecordStore store = new InMemoryRecordStore();

    // Found by the node's tests: close() did not wait, so a purge under way went on after the node released the
    // partitions it had read. A JDBC statement does not stop on an interrupt; this one neither.
    @Test
    void closeWaitsForTheStatementUnderWay() throws Exception {
        AtomicBoolean inStatement = new AtomicBoolean();
        AtomicBoolean statementMayEnd = new AtomicBoolean();
        AtomicBoolean statementEnded = new AtomicBoolean();
        OutboxPurger purger = OutboxPurger.builder().interval(Duration.ofMillis(10)).store(
                (partitions, status, createdBefore, limit) -> {
                    inStatement.set(true);
                    while (!statementMayEnd.get()) {
                        Thread.onSpinWait();
                    }
                    statementEnded.set(true);
                    return 0;
                }).build();
        purger.start();
        await().atMost(Duration.ofSeconds(30)).untilTrue(inStatement);

        Thread closing = new Thread(purger::close, "test-closing");
        closing.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> closing.getState() == Thread.State.TIMED_WAITING
                || !closing.isAlive());
        assertThat(closing.isAlive()).as("close waits for the statement").isTrue();

        statementMayEnd.set(true);
        closing.join(Duration.ofSeconds(30).toMillis());
        assertThat(closing.isAlive()).isFalse();
        assertThat(statementEnded).isTrue();
    }

    @Test
    void failedRecordsArePurgedOnlyWhenAskedAndOnlyInOwnedPartitions() {
        OutboxRecord ownedFailed = failed(AggregateIds.inPartition(1, "a"));
        OutboxRecord othersFailed = failed(AggregateIds.inPartition(2, "b"));
        clock.advance(Duration.ofDays(8));

        OutboxPurger.Builder purger = OutboxPurger.builder().store(store).clock(clock)
                .ownership(() -> OwnedPartitions.of(1));
        assertThat(purger.build().purgeNow()).as("FAILED records wait for an operator by default").isZero();
        assertThat(purger.includeFailed(true).build().purgeNow()).isEqualTo(1);

        assertThat(store.findById(ownedFailed.getId())).isEmpty();
        assertThat(store.findById(othersFailed.getId())).as("another instance's partition").isPresent();
    }

    @Test
    void anInstanceWithoutPartitionsPurgesNothing() {
        failed("a");
        clock.advance(Duration.ofDays(8));

        assertThat(OutboxPurger.builder().store(store).clock(clock).includeFailed(true)
                .ownership(OwnedPartitions::none).build().purgeNow()).isZero();
        assertThat(store.all()).hasSize(1);
    }

    @Test
    void badSettingsAreRefusedNamingTheProperty() {
        assertThatThrownBy(() -> OutboxPurger.builder().retention(Duration.ofDays(-1)))
                .hasMessage("outbox.purge.retention must not be negative but was PT-24H");
        assertThatThrownBy(() -> OutboxPurger.builder().interval(Duration.ZERO))
                .hasMessage("outbox.purge.interval must be positive but was PT0S");
        assertThatThrownBy(() -> OutboxPurger.builder().batchSize(0))
                .hasMessage("outbox.purge.batch-size must be between 1 and 100000 but was 0");
    }

    private OutboxRecord failed(String aggregateId) {
        OutboxRecord record = OutboxRecord.builder().aggregateId(aggregateId).eventType("E").payload("{}")
                .build(clock);
        store.save(record);
        assertThat(store.markFailed(Delivery.unfenced(store.findById(record.getId()).orElseThrow()), 3, "gave up")).isTrue();
        assertThat(store.findById(record.getId()).orElseThrow().getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        return record;
    }
}
