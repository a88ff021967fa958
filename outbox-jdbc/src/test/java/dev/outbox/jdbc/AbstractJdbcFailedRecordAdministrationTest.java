package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.testing.JdbcOutboxFixture;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.WriteFixture;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.FailedRecordAdministrationContract;
import dev.outbox.spi.PartitionRecords;
import dev.outbox.spi.RecordAdministration;
import dev.outbox.spi.RecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The FAILED-record administration contract of outbox-core on a real database, one subclass per database; and the
 * count of one partition's open records, which only the database stores answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcFailedRecordAdministrationTest extends FailedRecordAdministrationContract {

    private WriteFixture fixture;

    protected abstract TestDatabase.Kind databaseKind();

    @BeforeAll
    final void createStores() {
        fixture = JdbcOutboxFixture.create(databaseKind(), OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES,
                database -> OutboxTables.defaults());
    }

    @AfterAll
    final void dropStores() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @BeforeEach
    final void emptyTable() {
        fixture.deleteAllRecords();
    }

    @Override
    protected RecordStore recordStore() {
        return fixture.recordStore();
    }

    @Override
    protected OutboxRecordRepository repository() {
        return fixture.repository();
    }

    @Test
    final void aPartitionsOpenRecordsAreCountedWithTheOldestOfEachStatus() {
        MutableClock clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        OutboxAdmin admin = OutboxAdmin.builder().store((RecordAdministration) recordStore()).clock(clock).build();
        int partition = PartitionHasher.partitionOf("A");
        String elsewhere = "B";
        for (int i = 0; PartitionHasher.partitionOf(elsewhere) == partition; i++) {
            elsewhere = "B" + i;
        }
        OutboxRecord oldestFailed = failed(save("A", clock));
        OutboxRecord oldestNew = save("A", clock);
        OutboxRecord backingOff = save("A", clock);
        assertThat(recordStore().scheduleRetry(Delivery.unfenced(backingOff), 1, clock.instant().plusSeconds(60),
                "broker down")).isTrue();
        OutboxRecord putOff = save("A", clock);
        assertThat(recordStore().defer(Delivery.unfenced(putOff), clock.instant().plusSeconds(30),
                "no handler here", clock.instant())).isTrue();
        failed(save("A", clock));
        OutboxRecord done = save("A", clock);
        assertThat(recordStore().markCompleted(Delivery.unfenced(done), clock.instant())).isTrue();
        failed(save(elsewhere, clock));
        save(elsewhere, clock);

        PartitionRecords counted = admin.partitionRecords(partition);

        assertThat(counted).isEqualTo(new PartitionRecords(partition, clock.instant(), 3, 2, 1, 2,
                oldestNew.getCreatedAt(), oldestFailed.getCreatedAt()));
        clock.advance(Duration.ofMinutes(2));
        assertThat(admin.partitionRecords(partition).notYetDue()).as("due by now").isZero();
        int empty = (partition + 1) % 256 == PartitionHasher.partitionOf(elsewhere) ? (partition + 2) % 256
                : (partition + 1) % 256;
        assertThat(admin.partitionRecords(empty)).isEqualTo(new PartitionRecords(empty, clock.instant(), 0, 0, 0, 0,
                null, null));
        for (int outside : new int[] {-1, 256}) {
            assertThatThrownBy(() -> admin.partitionRecords(outside)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("partition must be between 0 and 255 but was " + outside);
        }
    }

    private OutboxRecord save(String aggregateId, MutableClock clock) {
        OutboxRecord record = OutboxRecord.builder().aggregateId(aggregateId).eventType("T").payload("{}")
                .build(clock);
        fixture.repository().save(record);
        clock.advance(Duration.ofSeconds(1));
        return fixture.repository().findById(record.getId()).orElseThrow();
    }

    private OutboxRecord failed(OutboxRecord record) {
        assertThat(recordStore().markFailed(Delivery.unfenced(record), 3, "gave up")).isTrue();
        return record;
    }
}
