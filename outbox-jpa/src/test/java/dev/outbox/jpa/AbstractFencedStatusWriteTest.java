package dev.outbox.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.jpa.dialect.DatabaseDialect;
import dev.outbox.jpa.testing.JpaOutboxFixture;
import dev.outbox.jpa.testing.TestDatabase;
import dev.outbox.spi.PartitionState;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Status writes of records delivered under a partition epoch only land while the writer owns that epoch. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractFencedStatusWriteTest {

    private static final Duration STALE = Duration.ofHours(1);

    private final MutableClock clock = MutableClock.startingNow();
    private JpaOutboxFixture fixture;
    private JdbcPartitionStore partitions;
    private JdbcInstanceStore instances;

    protected abstract TestDatabase.Kind databaseKind();

    @BeforeAll
    final void createStores() {
        fixture = JpaOutboxFixture.create(databaseKind(), OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES);
        DatabaseDialect dialect = DatabaseDialect.detect(fixture.database().dataSource());
        partitions = new JdbcPartitionStore(fixture.database().dataSource(), dialect);
        instances = new JdbcInstanceStore(fixture.database().dataSource(), dialect);
    }

    @AfterAll
    final void dropStores() {
        fixture.close();
    }

    @BeforeEach
    final void reset() {
        fixture.deleteAllRecords();
        fixture.jdbc().update("DELETE FROM outbox_instance");
        fixture.jdbc().update("UPDATE outbox_partition SET owner_instance_id = NULL, epoch = 0");
        instances.register(JpaOutboxFixture.INSTANCE_ID, "test-host", 0);
        instances.register("other-instance", "test-host", 0);
    }

    @Test
    final void theOwnerUnderTheCurrentEpochCompletesTheRecord() {
        OutboxRecord record = save();
        long epoch = claim(JpaOutboxFixture.INSTANCE_ID, record.getPartition());

        assertThat(fixture.recordStore().markCompleted(record.withEpoch(epoch), clock.instant())).isTrue();
        assertThat(status(record)).isEqualTo(OutboxRecordStatus.COMPLETED);
    }

    @Test
    final void aWriteUnderAnOlderEpochChangesNothing() {
        OutboxRecord record = save();
        long first = claim(JpaOutboxFixture.INSTANCE_ID, record.getPartition());
        long second = claim(JpaOutboxFixture.INSTANCE_ID, record.getPartition());
        assertThat(second).isEqualTo(first + 1);

        OutboxRecord stale = record.withEpoch(first);
        assertThat(fixture.recordStore().markCompleted(stale, clock.instant())).isFalse();
        assertThat(fixture.recordStore().scheduleRetry(stale, 1, clock.instant(), "boom")).isFalse();
        assertThat(fixture.recordStore().markFailed(stale, 0, "boom")).isFalse();
        OutboxRecord unchanged = fixture.repository().findById(record.getId()).orElseThrow();
        assertThat(unchanged.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(unchanged.getRetryCount()).isZero();
        assertThat(unchanged.getLastError()).isNull();
    }

    @Test
    final void aWriteAfterAnotherInstanceTookThePartitionOverChangesNothing() {
        OutboxRecord record = save();
        long ours = claim(JpaOutboxFixture.INSTANCE_ID, record.getPartition());
        assertThat(partitions.release(record.getPartition(), ours, JpaOutboxFixture.INSTANCE_ID)).isTrue();
        claim("other-instance", record.getPartition());

        assertThat(fixture.recordStore().markCompleted(record.withEpoch(ours), clock.instant())).isFalse();
        assertThat(fixture.recordStore().scheduleRetry(record.withEpoch(ours), 1, clock.instant(), "x")).isFalse();
        assertThat(status(record)).isEqualTo(OutboxRecordStatus.NEW);
    }

    @Test
    final void aReleasedPartitionFencesItsFormerOwner() {
        OutboxRecord record = save();
        long ours = claim(JpaOutboxFixture.INSTANCE_ID, record.getPartition());
        partitions.release(record.getPartition(), ours, JpaOutboxFixture.INSTANCE_ID);

        assertThat(fixture.recordStore().markFailed(record.withEpoch(ours), 0, "x")).isFalse();
        assertThat(status(record)).isEqualTo(OutboxRecordStatus.NEW);
    }

    @Test
    final void recordsOutsideOfCoordinationAreNotFenced() {
        OutboxRecord record = save();
        claim("other-instance", record.getPartition());

        assertThat(record.getEpoch()).isZero();
        assertThat(fixture.recordStore().markCompleted(record, clock.instant())).isTrue();
        assertThat(status(record)).isEqualTo(OutboxRecordStatus.COMPLETED);
    }

    @Test
    final void aWriteOfSeveralRecordsFencesEachRecordOnItsOwnPartitionAndEpoch() {
        OutboxRecord current = save("order-1");
        OutboxRecord staleEpoch = save("order-2");
        OutboxRecord takenOver = save("order-3");
        OutboxRecord retriedMeanwhile = save("order-4");
        OutboxRecord unfenced = save("order-5");
        long currentEpoch = claimIfFree(current.getPartition());
        long firstEpoch = claimIfFree(staleEpoch.getPartition());
        claim(JpaOutboxFixture.INSTANCE_ID, staleEpoch.getPartition());
        long lostEpoch = claimIfFree(takenOver.getPartition());
        partitions.release(takenOver.getPartition(), lostEpoch, JpaOutboxFixture.INSTANCE_ID);
        claim("other-instance", takenOver.getPartition());
        long retriedEpoch = claimIfFree(retriedMeanwhile.getPartition());
        assertThat(fixture.recordStore().scheduleRetry(retriedMeanwhile.withEpoch(retriedEpoch), 1, clock.instant(),
                "boom")).isTrue();
        List<OutboxRecord> delivered = List.of(current.withEpoch(currentEpoch), staleEpoch.withEpoch(firstEpoch),
                takenOver.withEpoch(lostEpoch), retriedMeanwhile.withEpoch(retriedEpoch), unfenced);

        List<OutboxRecord> notChanged = fixture.recordStore().markCompleted(delivered, clock.instant());

        assertThat(notChanged).extracting(OutboxRecord::getId)
                .containsExactlyInAnyOrder(staleEpoch.getId(), takenOver.getId(), retriedMeanwhile.getId());
        assertThat(List.of(current, unfenced)).allSatisfy(record ->
                assertThat(status(record)).isEqualTo(OutboxRecordStatus.COMPLETED));
        assertThat(List.of(staleEpoch, takenOver, retriedMeanwhile)).allSatisfy(record ->
                assertThat(status(record)).isEqualTo(OutboxRecordStatus.NEW));
    }

    @Test
    final void aDeleteOfSeveralRecordsFencesEachRecordOnItsOwnPartitionAndEpoch() {
        OutboxRecord current = save("order-1");
        OutboxRecord staleEpoch = save("order-2");
        long currentEpoch = claimIfFree(current.getPartition());
        long firstEpoch = claimIfFree(staleEpoch.getPartition());
        claim(JpaOutboxFixture.INSTANCE_ID, staleEpoch.getPartition());

        List<OutboxRecord> notDeleted = fixture.recordStore().deleteCompleted(
                List.of(current.withEpoch(currentEpoch), staleEpoch.withEpoch(firstEpoch)));

        assertThat(notDeleted).extracting(OutboxRecord::getId).containsExactly(staleEpoch.getId());
        assertThat(fixture.repository().findById(current.getId())).isEmpty();
        assertThat(status(staleEpoch)).isEqualTo(OutboxRecordStatus.NEW);
    }

    /** Claims the partition for this instance unless an earlier record of the test already did; returns the epoch. */
    private long claimIfFree(int partition) {
        PartitionState row = partitions.findAll().get(partition);
        if (JpaOutboxFixture.INSTANCE_ID.equals(row.owner())) {
            return row.epoch();
        }
        return claim(JpaOutboxFixture.INSTANCE_ID, partition);
    }

    private OutboxRecord save() {
        return save("order-7");
    }

    private OutboxRecord save(String aggregateId) {
        OutboxRecord record = OutboxRecord.builder().aggregateId(aggregateId).eventType("Test").payload("{}")
                .build(clock);
        fixture.repository().save(record);
        return fixture.repository().findById(record.getId()).orElseThrow();
    }

    private long claim(String instanceId, int partition) {
        PartitionState row = partitions.findAll().get(partition);
        assertThat(partitions.claim(partition, row.epoch(), instanceId, STALE)).isTrue();
        return row.epoch() + 1;
    }

    private OutboxRecordStatus status(OutboxRecord record) {
        return fixture.repository().findById(record.getId()).orElseThrow().getStatus();
    }
}
