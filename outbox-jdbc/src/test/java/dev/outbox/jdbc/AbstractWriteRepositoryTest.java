package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.jdbc.testing.WriteFixture;
import dev.outbox.testing.MutableClock;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The write path on its own, with plain Spring transactions on H2: the same behaviour from the JPA repository and the
 * JDBC one, one subclass each.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractWriteRepositoryTest<F extends WriteFixture> {

    protected static final int PAYLOAD_LIMIT = 64;

    protected final MutableClock clock = MutableClock.startingNow();
    protected F fixture;

    /** The repository under test on a fresh H2 database, with payloads limited to {@link #PAYLOAD_LIMIT}. */
    protected abstract F createFixture();

    @BeforeAll
    void createStores() {
        fixture = createFixture();
    }

    @AfterAll
    void dropStores() {
        fixture.close();
    }

    @BeforeEach
    void emptyTable() {
        fixture.deleteAllRecords();
    }

    @Test
    void saveWithoutATransactionRunsInOneOfItsOwn() {
        OutboxRecord record = record("agg-1", "{}");

        fixture.repository().save(record);

        assertThat(fixture.repository().findById(record.getId())).isPresent();
    }

    @Test
    void saveJoinsTheCallersTransactionAndRollsBackWithIt() {
        TransactionTemplate transaction = new TransactionTemplate(fixture.transactionManager());

        transaction.executeWithoutResult(status -> {
            fixture.repository().save(record("agg-1", "{\"a\":1}"));
            fixture.repository().save(record("agg-1", "{\"a\":2}"));
            status.setRollbackOnly();
        });

        assertThat(fixture.repository().countByStatus(OutboxRecordStatus.NEW)).isZero();
    }

    @Test
    void aTransactionStartedInsideAnotherCommitsItsOwnRecordsWhenTheOuterRollsBack() {
        TransactionTemplate outer = new TransactionTemplate(fixture.transactionManager());
        TransactionTemplate inner = new TransactionTemplate(fixture.transactionManager());
        inner.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);

        outer.executeWithoutResult(status -> {
            fixture.repository().save(record("outer", "{\"a\":1}"));
            inner.executeWithoutResult(nested -> fixture.repository().save(record("inner", "{\"b\":1}")));
            fixture.repository().save(record("outer", "{\"a\":2}"));
            status.setRollbackOnly();
        });

        assertThat(fixture.repository().findByAggregateId("inner")).hasSize(1);
        assertThat(fixture.repository().findByAggregateId("outer")).isEmpty();
    }

    @Test
    void theAfterCommitCallbackRunsOncePerCommittedTransactionAndNeverOnRollback() {
        TransactionTemplate transaction = new TransactionTemplate(fixture.transactionManager());
        int before = fixture.committedTransactions();

        transaction.executeWithoutResult(status -> {
            fixture.repository().save(record("agg-1", "one"));
            fixture.repository().save(record("agg-2", "two"));
        });
        assertThat(fixture.committedTransactions()).isEqualTo(before + 1);

        transaction.executeWithoutResult(status -> {
            fixture.repository().save(record("agg-1", "rolled back"));
            status.setRollbackOnly();
        });
        assertThat(fixture.committedTransactions()).isEqualTo(before + 1);

        fixture.repository().save(record("agg-3", "own transaction"));
        assertThat(fixture.committedTransactions()).isEqualTo(before + 2);
        List<Set<Integer>> partitions = fixture.committedPartitions();
        assertThat(partitions.get(partitions.size() - 2)).as("the partitions of the first transaction")
                .containsExactlyInAnyOrder(PartitionHasher.partitionOf("agg-1"),
                        PartitionHasher.partitionOf("agg-2"));
        assertThat(partitions.get(partitions.size() - 1))
                .containsExactly(PartitionHasher.partitionOf("agg-3"));
    }

    @Test
    void recordsReadBackInTheSameTransactionCarryTheirDatabaseSequence() {
        TransactionTemplate transaction = new TransactionTemplate(fixture.transactionManager());

        List<OutboxRecord> read = transaction.execute(status -> {
            fixture.repository().save(record("agg-1", "first"));
            fixture.repository().save(record("agg-1", "second"));
            return fixture.repository().findByAggregateId("agg-1");
        });

        assertThat(read).extracting(OutboxRecord::getPayload).containsExactly("first", "second");
        assertThat(read.get(0).getSequence()).isNotNull();
        assertThat(read.get(1).getSequence()).isGreaterThan(read.get(0).getSequence());
    }

    @Test
    void payloadOverTheConfiguredLimitIsRejectedAndNothingIsWritten() {
        TransactionTemplate transaction = new TransactionTemplate(fixture.transactionManager());
        OutboxRecord tooLarge = record("agg-1", "x".repeat(PAYLOAD_LIMIT + 1));

        assertThatThrownBy(() -> transaction.executeWithoutResult(status -> {
            fixture.repository().save(record("agg-1", "fits"));
            fixture.repository().save(tooLarge);
        })).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("payload is 65 bytes (UTF-8); the limit is 64 bytes (outbox.max-payload-size)");

        assertThat(fixture.jdbc().queryForObject("SELECT COUNT(*) FROM " + fixture.sql().recordTable(), Integer.class)).isZero();
    }

    @Test
    void payloadLimitCountsUtf8Bytes() {
        // 32 two-byte characters are 64 bytes: at the limit. One more byte is over.
        fixture.repository().save(record("agg-1", "é".repeat(32)));

        assertThatThrownBy(() -> fixture.repository().save(record("agg-1", "é".repeat(32) + "x")))
                .hasMessageContaining("payload is 65 bytes");
        assertThat(fixture.repository().findByAggregateId("agg-1")).hasSize(1);
    }

    protected OutboxRecord record(String aggregateId, String payload) {
        return OutboxRecord.builder().aggregateId(aggregateId).eventType("Test").payload(payload)
                .maxPayloadBytes(1024).build(clock);
    }
}
