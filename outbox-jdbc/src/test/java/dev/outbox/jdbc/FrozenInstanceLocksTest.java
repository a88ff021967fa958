package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.outbox.OutboxRecord;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.jdbc.testing.JdbcOutboxFixture;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.partition.Fence;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.InstanceState;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * An instance frozen (SIGSTOP, a long GC pause) inside a transaction holds up no other instance's takeover of its
 * partitions. On MariaDB a write's subqueries lock the rows they read: a heartbeat left uncommitted across the freeze
 * held the instance row the claims read, and a batch of fenced completions held the partition rows they fence on,
 * so every takeover waited until the frozen instance woke up.
 */
class FrozenInstanceLocksTest {

    private static final int PARTITION = 7;
    private static final Duration LIVE = Duration.ofSeconds(30);
    /** Far longer than a claim takes; a claim waiting for the frozen instance's row waited until it woke up. */
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void anInstanceFrozenBetweenItsHeartbeatAndItsReadHoldsUpNoOtherInstance(TestDatabase.Kind kind)
            throws InterruptedException {
        try (TestDatabase db = TestDatabase.create(kind)) {
            OutboxSchemaInitializer.apply(db.dataSource());
            SqlStatements sql = DatabaseDialect.detect(db.dataSource(), OutboxTables.defaults());
            JdbcInstanceStore instances = new JdbcInstanceStore(db.dataSource(), sql);
            JdbcPartitionStore partitions = new JdbcPartitionStore(db.dataSource(), sql);
            instances.register("frozen", "127.0.0.1", 0);
            instances.register("live", "127.0.0.1", 0);
            assertThat(partitions.claim(PARTITION, 0, "frozen", LIVE)).isTrue();

            FreezingDataSource freezing = new FreezingDataSource(db.dataSource(), FreezingDataSource::isRead);
            JdbcInstanceStore frozenInstance = new JdbcInstanceStore(freezing, sql);
            CompletableFuture<Optional<List<InstanceState>>> heartbeat =
                    CompletableFuture.supplyAsync(() -> frozenInstance.heartbeatAndFindLive("frozen", LIVE));
            try {
                freezing.awaitFrozen();
                // With no stale timeout, every heartbeat before this moment is stale.
                boolean claimed = assertTimeoutPreemptively(PATIENCE,
                        () -> partitions.claim(PARTITION, 1, "live", Duration.ZERO));
                assertThat(claimed).as("the frozen instance's partition, claimed while it is frozen").isTrue();
                assertTimeoutPreemptively(PATIENCE, () -> instances.removeStale(Duration.ZERO));
            } finally {
                freezing.wakeUp();
            }
            assertThat(heartbeat.join()).as("the frozen heartbeat, finished once woken").isPresent();
            assertThat(partitions.findAll().get(PARTITION).owner()).isEqualTo("live");
        }
    }

    /**
     * On MariaDB and H2 a batch of completions is a transaction of its own (PostgreSQL's is one statement, and so
     * cannot be frozen before its commit).
     */
    @ParameterizedTest
    @EnumSource(value = TestDatabase.Kind.class, names = {"H2", "MARIADB"})
    void anInstanceFrozenBeforeCommittingABatchOfCompletionsHoldsUpNoClaimOfItsPartitions(TestDatabase.Kind kind)
            throws InterruptedException {
        frozenBeforeCommittingABatch(kind, (store, deliveries) -> store.markCompleted(deliveries, Instant.now()));
    }

    /**
     * outbox.processing.delete-completed-records: on MariaDB a DELETE's fence locked the partition rows it read at
     * every isolation, so the claims waited for the frozen instance.
     */
    @ParameterizedTest
    @EnumSource(value = TestDatabase.Kind.class, names = {"H2", "MARIADB"})
    void anInstanceFrozenBeforeCommittingABatchOfDeletionsHoldsUpNoClaimOfItsPartitions(TestDatabase.Kind kind)
            throws InterruptedException {
        frozenBeforeCommittingABatch(kind, JdbcRecordStore::deleteCompleted);
    }

    private static void frozenBeforeCommittingABatch(TestDatabase.Kind kind,
            BiFunction<JdbcRecordStore, List<Delivery>, List<Delivery>> completion) throws InterruptedException {
        try (JdbcOutboxFixture fixture = JdbcOutboxFixture.create(kind, 65_536)) {
            DataSource dataSource = fixture.database().dataSource();
            JdbcInstanceStore instances = new JdbcInstanceStore(dataSource, fixture.sql());
            JdbcPartitionStore partitions = new JdbcPartitionStore(dataSource, fixture.sql());
            instances.register("frozen", "127.0.0.1", 0);
            instances.register("live", "127.0.0.1", 0);
            List<Delivery> deliveries = new ArrayList<>();
            for (String aggregateId : List.of("order-1", "order-2")) {
                OutboxRecord record = OutboxRecord.builder().aggregateId(aggregateId).eventType("Frozen")
                        .payload("{}").build(Clock.systemUTC());
                fixture.repository().save(record);
                int partition = record.getPartition();
                assertThat(partitions.claim(partition, 0, "frozen", LIVE)).isTrue();
                deliveries.add(Delivery.of(fixture.repository().findById(record.getId()).orElseThrow(),
                        Fence.of(partition, 1, "frozen")));
            }

            FreezingDataSource freezing = new FreezingDataSource(dataSource, "COMMIT"::equals);
            JdbcRecordStore frozenInstance = new JdbcRecordStore(freezing, fixture.sql());
            CompletableFuture<List<Delivery>> completed =
                    CompletableFuture.supplyAsync(() -> completion.apply(frozenInstance, deliveries));
            try {
                freezing.awaitFrozen();
                int partition = deliveries.get(0).fence().partition();
                boolean claimed = assertTimeoutPreemptively(PATIENCE,
                        () -> partitions.claim(partition, 1, "live", Duration.ZERO));
                assertThat(claimed).as("a partition of the frozen batch, claimed while it is frozen").isTrue();
            } finally {
                freezing.wakeUp();
            }
            completed.join();
        }
    }

    /**
     * Freezes before the first statement {@code freezesBefore} picks (a commit is {@code COMMIT}) until
     * {@link #wakeUp}.
     */
    private static final class FreezingDataSource extends DelegatingDataSource {

        private final CountDownLatch frozen = new CountDownLatch(1);
        private final CountDownLatch wokenUp = new CountDownLatch(1);
        private final Predicate<String> freezesBefore;

        FreezingDataSource(DataSource target, Predicate<String> freezesBefore) {
            super(target);
            this.freezesBefore = freezesBefore;
        }

        void awaitFrozen() throws InterruptedException {
            assertThat(frozen.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("frozen before its read").isTrue();
        }

        void wakeUp() {
            wokenUp.countDown();
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = super.getConnection();
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                    (proxy, method, args) -> {
                        String statement = method.getName().equals("commit") ? "COMMIT"
                                : method.getName().equals("prepareStatement") ? (String) args[0] : null;
                        if (statement != null && freezesBefore.test(statement) && frozen.getCount() > 0) {
                            frozen.countDown();
                            wokenUp.await(PATIENCE.toSeconds() * 3, TimeUnit.SECONDS);
                        }
                        try {
                            return method.invoke(connection, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }

        static boolean isRead(String statement) {
            return statement.strip().toUpperCase(Locale.ROOT).startsWith("SELECT");
        }
    }
}
