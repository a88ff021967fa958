package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.WriteFixture;
import dev.outbox.partition.Fence;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.PartitionState;
import dev.outbox.spi.RecordTransactions;
import dev.outbox.spi.TransactionNotBegunException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.CannotCreateTransactionException;

/**
 * The transactions of transactional handlers ({@link JdbcOutboxStores#recordTransactions}) on a real database, one
 * subclass per write path (JDBC, JPA) and database: a handler's write (a shipment row named after its record) and its
 * record's fenced completion commit together or not at all. A completion the fence refuses, or a handler that throws,
 * leaves neither; of two owners completing one record at once, one commits and the other rolls back. A transaction
 * that cannot begin is told apart from one whose work failed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractRecordTransactionsContractTest {

    private static final String OWNER = "owner";
    private static final String SUCCESSOR = "successor";
    /** Far longer than any step here takes; a step waiting on a lock nobody lets go waits this long. */
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final AtomicInteger aggregates = new AtomicInteger();
    private WriteFixture fixture;
    private JdbcOutboxStores stores;
    private RecordTransactions transactions;

    protected abstract TestDatabase.Kind databaseKind();

    /** The write path under test on a fresh database of {@code kind}, with its transaction manager. */
    protected abstract WriteFixture createFixture(TestDatabase.Kind kind);

    /** Creates the shipments table the handlers write, unless the fixture has made it. */
    protected void createShipmentTable(WriteFixture fixture) {
        fixture.jdbc().execute("CREATE TABLE test_shipment (id VARCHAR(255) NOT NULL PRIMARY KEY,"
                + " destination VARCHAR(255))");
    }

    /** The handler's write, in the current transaction: shipment {@code id} to the record {@code recordId}. */
    protected void writeShipment(WriteFixture fixture, String id, String recordId) {
        fixture.jdbc().update("INSERT INTO test_shipment (id, destination) VALUES (?, ?)", id, recordId);
    }

    /** What the later of two owners completing one record at once sees, once the first has committed. */
    enum ConcurrentOutcome {
        /** Its completion changed no row: the record was no longer NEW. */
        REFUSED,
        /** Its completion failed (a conflict the database reports). */
        FAILED
    }

    /** How this database ends the later of two completions of one record: the same on every write path. */
    private ConcurrentOutcome concurrentCompletionOutcome() {
        return switch (databaseKind()) {
            case POSTGRES, MARIADB, H2 -> ConcurrentOutcome.REFUSED;
        };
    }

    /** The write path's fixture, for a database's own tests. */
    protected final WriteFixture fixture() {
        return fixture;
    }

    /** The stores on the fixture's database, for a database's own tests. */
    protected final JdbcOutboxStores stores() {
        return stores;
    }

    @BeforeAll
    final void createStores() {
        fixture = createFixture(databaseKind());
        createShipmentTable(fixture);
        stores = JdbcOutboxStores.create(fixture.database().dataSource(), fixture.sql(), false);
        transactions = stores.recordTransactions(fixture.transactionManager());
    }

    @AfterAll
    final void dropStores() {
        if (stores != null) {
            stores.close();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    @BeforeEach
    final void emptyTables() {
        fixture.deleteAllRecords();
        fixture.jdbc().update("DELETE FROM test_shipment");
    }

    @ParameterizedTest
    @EnumSource(Completion.class)
    public final void theHandlersWriteAndItsRecordsCompletionCommitTogether(Completion completion) {
        Delivery delivery = delivered(saveRecord(Set.of()), OWNER);

        transactions.inTransaction(() -> {
            writeShipment(fixture, "shipment-1", delivery.id());
            assertThat(completion.complete(stores.records(), List.of(delivery))).as("refused").isEmpty();
        });

        assertThat(shipments(delivery.id())).isEqualTo(1);
        assertThat(status(delivery.id())).isEqualTo(completion.statusAfter());
    }

    @ParameterizedTest
    @EnumSource(FenceMove.class)
    public final void aCompletionTheFenceRefusesTakesTheHandlersWriteWithIt(FenceMove move) {
        OutboxRecord record = saveRecord(Set.of());
        Delivery delivery = delivered(record, OWNER);
        claim(record.getPartition(), move.claimant());
        List<Delivery> refused = new ArrayList<>();

        assertThatThrownBy(() -> transactions.inTransaction(() -> {
            writeShipment(fixture, "shipment-1", delivery.id());
            refused.addAll(stores.records().markCompleted(List.of(delivery), Instant.now()));
            CompletionRefused.throwIfAny(refused);
        })).isInstanceOf(CompletionRefused.class);

        assertThat(refused).containsExactly(delivery);
        assertThat(shipments(delivery.id())).as("the handler's write").isZero();
        assertThat(status(delivery.id())).contains(OutboxRecordStatus.NEW);
    }

    @ParameterizedTest
    @EnumSource(Completion.class)
    public final void aHandlerThatThrowsAfterWritingLeavesNeitherItsWriteNorItsCompletion(Completion completion) {
        Delivery delivery = delivered(saveRecord(Set.of()), OWNER);
        RuntimeException failure = new IllegalStateException("the handler failed after writing");

        assertThatThrownBy(() -> transactions.inTransaction(() -> {
            writeShipment(fixture, "shipment-1", delivery.id());
            assertThat(completion.complete(stores.records(), List.of(delivery))).as("refused").isEmpty();
            throw failure;
        })).isSameAs(failure);

        assertThat(shipments(delivery.id())).isZero();
        assertThat(status(delivery.id())).contains(OutboxRecordStatus.NEW);
    }

    /** Several deliveries go through the bulk statement on PostgreSQL and a JDBC batch elsewhere. */
    @ParameterizedTest
    @EnumSource(Completion.class)
    public final void severalRecordsCompletedInOneTransactionCommitWithTheHandlersWrites(Completion completion) {
        List<Delivery> deliveries = deliveredInPartitionsOfTheirOwn(3);

        transactions.inTransaction(() -> {
            deliveries.forEach(delivery -> writeShipment(fixture, "shipment-" + delivery.id(), delivery.id()));
            assertThat(completion.complete(stores.records(), deliveries)).as("refused").isEmpty();
        });

        for (Delivery delivery : deliveries) {
            assertThat(shipments(delivery.id())).isEqualTo(1);
            assertThat(status(delivery.id())).isEqualTo(completion.statusAfter());
        }
    }

    @ParameterizedTest
    @EnumSource(Completion.class)
    public final void severalRecordsCompletedInOneTransactionWithOneRefusedRollBackTogether(Completion completion) {
        List<Delivery> deliveries = deliveredInPartitionsOfTheirOwn(3);
        Delivery takenOver = deliveries.get(1);
        claim(takenOver.fence().partition(), SUCCESSOR);
        List<Delivery> refused = new ArrayList<>();

        assertThatThrownBy(() -> transactions.inTransaction(() -> {
            deliveries.forEach(delivery -> writeShipment(fixture, "shipment-" + delivery.id(), delivery.id()));
            refused.addAll(completion.complete(stores.records(), deliveries));
            CompletionRefused.throwIfAny(refused);
        })).isInstanceOf(CompletionRefused.class);

        assertThat(refused).containsExactly(takenOver);
        for (Delivery delivery : deliveries) {
            assertThat(shipments(delivery.id())).as("shipment of %s", delivery.id()).isZero();
            assertThat(status(delivery.id())).as("record %s", delivery.id()).contains(OutboxRecordStatus.NEW);
        }
    }

    /**
     * The heart of exactly-once: the stale owner has written and completed but not committed when its partition
     * changes hands; the successor writes, and its completion waits for the stale owner's row. Once the stale owner
     * commits, the successor's completion is refused or fails, and its write goes with it.
     */
    @ParameterizedTest
    @EnumSource(Completion.class)
    public final void aStaleOwnerAndItsSuccessorCompletingOneRecordAtOnceLeaveOneShipment(Completion completion)
            throws Exception {
        OutboxRecord record = saveRecord(Set.of());
        Delivery stale = delivered(record, OWNER);
        CountDownLatch staleCompleted = new CountDownLatch(1);
        CountDownLatch staleMayCommit = new CountDownLatch(1);
        CountDownLatch successorWrote = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<?> staleOwner = threads.submit(() -> transactions.inTransaction(() -> {
                writeShipment(fixture, "by-" + OWNER, record.getId());
                assertThat(completion.complete(stores.records(), List.of(stale))).as("refused").isEmpty();
                staleCompleted.countDown();
                awaitLatch(staleMayCommit);
            }));
            await().atMost(PATIENCE).until(() -> staleCompleted.getCount() == 0 || staleOwner.isDone());
            assertThat(staleOwner).as("the stale owner, completed and not committed").isNotDone();

            // No claim waits for the open transaction of the partition's owner (its fence read holds no lock).
            Fence successorFence = assertTimeoutPreemptively(PATIENCE,
                    () -> claim(record.getPartition(), SUCCESSOR));
            Delivery successor = Delivery.of(record, successorFence);
            Future<?> successorAttempt = threads.submit(() -> transactions.inTransaction(() -> {
                writeShipment(fixture, "by-" + SUCCESSOR, record.getId());
                successorWrote.countDown();
                CompletionRefused.throwIfAny(completion.complete(stores.records(), List.of(successor)));
            }));
            await().atMost(PATIENCE).until(() -> successorWrote.getCount() == 0 || successorAttempt.isDone());
            await().atMost(PATIENCE).until(() -> waitsForALock() || successorAttempt.isDone());
            assertThat(successorAttempt).as("the successor's completion, waiting for the stale owner's row")
                    .isNotDone();

            staleMayCommit.countDown();
            staleOwner.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            Throwable successorFailure = failureOf(successorAttempt);

            assertThat(successorFailure).as("the successor's transaction, which must not commit").isNotNull();
            ConcurrentOutcome outcome = successorFailure instanceof CompletionRefused ? ConcurrentOutcome.REFUSED
                    : ConcurrentOutcome.FAILED;
            assertThat(outcome).as("the successor's completion (%s)", successorFailure)
                    .isEqualTo(concurrentCompletionOutcome());
            assertThat(fixture.jdbc().queryForList("SELECT id FROM test_shipment WHERE destination = ?",
                    String.class, record.getId())).containsExactly("by-" + OWNER);
            assertThat(status(record.getId())).isEqualTo(completion.statusAfter());
        } finally {
            staleMayCommit.countDown();
            threads.shutdownNow();
        }
    }

    @Test
    public final void aTransactionManagerOfAnotherDataSourceIsRefusedBeforeTheWorkRuns() {
        try (TestDatabase elsewhere = TestDatabase.create(TestDatabase.Kind.H2)) {
            DataSourceTransactionManager otherManager = new DataSourceTransactionManager(elsewhere.dataSource());
            RecordTransactions misconfigured = stores.recordTransactions(otherManager);
            Delivery delivery = delivered(saveRecord(Set.of()), OWNER);
            AtomicBoolean ran = new AtomicBoolean();

            assertThatThrownBy(() -> misconfigured.inTransaction(() -> {
                ran.set(true);
                writeShipment(fixture, "shipment-1", delivery.id());
                stores.records().markCompleted(List.of(delivery), Instant.now());
            })).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(otherManager.toString())
                    .hasMessageContaining("could not commit with the handler's writes");

            assertThat(ran).as("the work").isFalse();
            assertThat(shipments(delivery.id())).isZero();
            assertThat(status(delivery.id())).contains(OutboxRecordStatus.NEW);
        }
    }

    @Test
    public final void aTransactionThatCannotBeginIsNotBegunAndItsWorkDoesNotRun() {
        DataSource down = new DelegatingDataSource(fixture.database().dataSource()) {
            @Override
            public Connection getConnection() throws SQLException {
                throw new SQLException("the database is down");
            }
        };
        try (JdbcOutboxStores unreachable = JdbcOutboxStores.create(down, fixture.sql(), false)) {
            RecordTransactions notBegun = unreachable.recordTransactions(new DataSourceTransactionManager(down));
            AtomicBoolean ran = new AtomicBoolean();

            assertThatThrownBy(() -> notBegun.inTransaction(() -> ran.set(true)))
                    .isInstanceOf(TransactionNotBegunException.class)
                    .hasMessageContaining("could not begin a transaction of the records' database")
                    .hasRootCauseMessage("the database is down");
            assertThat(ran).as("the work").isFalse();
        }
    }

    @Test
    public final void aTransactionTheWorkCannotBeginIsTheWorksFailureNotTheRecordTransactions() {
        RuntimeException failure = new CannotCreateTransactionException("the handler's own transaction");

        assertThatThrownBy(() -> transactions.inTransaction(() -> {
            throw failure;
        })).isSameAs(failure);
    }

    // ================================================================ helpers

    /** Saves a new record (in a transaction of its own) in a partition none of {@code taken}; returns it as stored. */
    private OutboxRecord saveRecord(Set<Integer> taken) {
        OutboxRecord record;
        do {
            record = OutboxRecord.builder().aggregateId("order-" + aggregates.incrementAndGet())
                    .eventType("OrderShipped").payload("{}").build(Clock.systemUTC());
        } while (taken.contains(record.getPartition()));
        fixture.repository().save(record);
        return fixture.repository().findById(record.getId()).orElseThrow();
    }

    /** {@code count} records, each in a partition of its own, handed out to {@link #OWNER}. */
    private List<Delivery> deliveredInPartitionsOfTheirOwn(int count) {
        Set<Integer> taken = new HashSet<>();
        List<Delivery> deliveries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            OutboxRecord record = saveRecord(taken);
            taken.add(record.getPartition());
            deliveries.add(delivered(record, OWNER));
        }
        return deliveries;
    }

    /** The record handed out to {@code owner}, which claims its partition first. */
    private Delivery delivered(OutboxRecord record, String owner) {
        return Delivery.of(record, claim(record.getPartition(), owner));
    }

    /** Makes {@code owner} the partition's owner under the next epoch, whoever owned it; returns the new fence. */
    private Fence claim(int partition, String owner) {
        PartitionState current = stores.partitions().findAll().get(partition);
        // With no stale timeout every other owner counts as gone.
        assertThat(stores.partitions().claim(partition, current.epoch(), owner, Duration.ZERO)).as("claimed").isTrue();
        return Fence.of(partition, current.epoch() + 1, owner);
    }

    private int shipments(String recordId) {
        Integer count = fixture.jdbc().queryForObject("SELECT COUNT(*) FROM test_shipment WHERE destination = ?",
                Integer.class, recordId);
        return count == null ? 0 : count;
    }

    /** The record's status, empty when its row is gone. */
    private Optional<OutboxRecordStatus> status(String recordId) {
        return fixture.repository().findById(recordId).map(OutboxRecord::getStatus);
    }

    /** Whether a session of this database waits for a row lock another one holds. */
    private boolean waitsForALock() {
        String waiting = switch (databaseKind()) {
            case POSTGRES -> "SELECT COUNT(*) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND wait_event_type = 'Lock'";
            case MARIADB -> "SELECT COUNT(*) FROM information_schema.innodb_trx t"
                    + " JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id"
                    + " WHERE t.trx_state = 'LOCK WAIT' AND p.db = DATABASE()";
            case H2 -> "SELECT COUNT(*) FROM information_schema.sessions WHERE blocker_id IS NOT NULL";
        };
        Integer sessions = fixture.jdbc().queryForObject(waiting, Integer.class);
        return sessions != null && sessions > 0;
    }

    /** What the attempt threw, or null when it returned; fails if it has not ended within {@link #PATIENCE}. */
    private static @Nullable Throwable failureOf(Future<?> attempt) throws Exception {
        try {
            attempt.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            assertThat(latch.await(PATIENCE.toSeconds() * 2, TimeUnit.SECONDS)).as("released").isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** How a record is completed: its row becomes COMPLETED, or goes (delete-completed-records). */
    public enum Completion {
        MARK_COMPLETED,
        DELETE_COMPLETED;

        List<Delivery> complete(JdbcRecordStore store, List<Delivery> deliveries) {
            return this == MARK_COMPLETED ? store.markCompleted(deliveries, Instant.now())
                    : store.deleteCompleted(deliveries);
        }

        Optional<OutboxRecordStatus> statusAfter() {
            return this == MARK_COMPLETED ? Optional.of(OutboxRecordStatus.COMPLETED) : Optional.empty();
        }
    }

    /** How a fence goes stale before the completion under it. */
    public enum FenceMove {
        /** Another instance claimed the partition. */
        TAKEN_OVER,
        /** The same instance claimed it again, under a later epoch. */
        CLAIMED_AGAIN;

        String claimant() {
            return this == TAKEN_OVER ? SUCCESSOR : OWNER;
        }
    }

    /** What a transactional handler's run throws when the store refuses a completion: the transaction rolls back. */
    static final class CompletionRefused extends RuntimeException {

        CompletionRefused(List<Delivery> refused) {
            super("completion refused: " + refused.stream().map(Delivery::id).toList());
        }

        static void throwIfAny(List<Delivery> refused) {
            if (!refused.isEmpty()) {
                throw new CompletionRefused(refused);
            }
        }
    }
}
