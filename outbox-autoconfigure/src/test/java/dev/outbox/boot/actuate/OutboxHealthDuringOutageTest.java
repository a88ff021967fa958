package dev.outbox.boot.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.admin.OutboxAdmin;
import dev.outbox.boot.actuate.OutboxEndpoint.AdminResult;
import dev.outbox.boot.actuate.OutboxEndpoint.AdminUnavailable;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.spi.RecordAdministration;
import dev.outbox.spi.RecordStatistics;
import dev.outbox.testing.InMemoryClusterStore;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import dev.outbox.testkit.DatabaseHang;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Issue 29: health and {@code /actuator/outbox} while the outbox tables do not answer. The hang lasts until the test
 * ends it, so an answer at all proves the call did not wait on the database.
 */
class OutboxHealthDuringOutageTest {

    /** Far beyond the calls' own bounds, far below the hang (which lasts until the test ends it). */
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private final MutableClock clock = MutableClock.startingNow();
    private final InMemoryClusterStore cluster = new InMemoryClusterStore(clock);
    private final InMemoryRecordStore records = new InMemoryRecordStore(cluster);
    private final DatabaseHang hang = new DatabaseHang();
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final ClusterCoordinator coordinator = ClusterCoordinator.builder().instanceStore(cluster)
            .partitionStore(cluster).instanceId("node-a").heartbeatInterval(Duration.ofSeconds(2))
            .staleTimeout(Duration.ofSeconds(10)).nanoClock(nanos::get).build();
    private final OutboxMonitor monitor = OutboxMonitor.builder()
            .statistics(hang.wrap(records, RecordStatistics.class)).ownership(coordinator)
            .instances(hang.wrap(cluster, dev.outbox.spi.InstanceStore.class), Duration.ofSeconds(10))
            .refreshInterval(Duration.ofSeconds(1)).clock(clock).build();

    @AfterEach
    void endTheHang() {
        hang.end();
    }

    @Test
    void healthAnswersFromTheLastSnapshotWhileTheTablesHangAndIsDownOnceTheLeaseIsLost() throws Exception {
        OutboxHealthIndicator indicator = new OutboxHealthIndicator(monitor, coordinator);
        coordinator.heartbeat();
        coordinator.rebalance();
        assertThat(indicator.health(true).getStatus()).isEqualTo(Status.UP);

        hang.begin();
        clock.advance(Duration.ofSeconds(2)); // the snapshot is due for a refresh, which hangs
        Health duringOutage = answered(() -> indicator.health(true));
        assertThat(duringOutage.getStatus()).as("the lease still holds").isEqualTo(Status.UP);
        assertThat(duringOutage.getDetails()).containsEntry("ownedPartitions", 256).containsEntry("stale", true)
                .containsEntry("snapshotAgeSeconds", 2.0);

        nanos.addAndGet(Duration.ofSeconds(8).toNanos()); // no heartbeat for the lease (stale − heartbeat interval)
        Health leaseLost = answered(() -> indicator.health(true));
        assertThat(leaseLost.getStatus()).isEqualTo(Status.DOWN);
        assertThat(leaseLost.getDetails()).containsEntry("ownedPartitions", 0)
                .containsEntry("reason", "heartbeat lease lost: no heartbeat for 8.0s; this instance processes no "
                        + "partition until it heartbeats again");
    }

    @Test
    void healthIsDownWithTheReasonOnceTheTablesHaveNotAnsweredForTheStaleTimeout() throws Exception {
        OutboxHealthIndicator indicator = new OutboxHealthIndicator(monitor, null);
        assertThat(indicator.health(true).getStatus()).isEqualTo(Status.UP);

        hang.begin();
        clock.advance(Duration.ofSeconds(2));
        assertThat(answered(() -> indicator.health(true)).getStatus()).as("silent for less than 10 s")
                .isEqualTo(Status.UP);
        clock.advance(Duration.ofSeconds(10));
        Health silent = answered(() -> indicator.health(true));
        assertThat(silent.getStatus()).isEqualTo(Status.DOWN);
        assertThat(silent.getDetails()).containsEntry("reason", "the outbox tables have not answered for 10.0s "
                + "(outbox.instance.stale-instance-timeout-seconds: 10)").containsEntry("stale", true);
    }

    @Test
    void theEndpointAnswersWithTheLastFiguresMarkedStaleRatherThanFailing() throws Exception {
        OutboxAdmin admin = OutboxAdmin.builder().store(hang.wrap(records, RecordAdministration.class)).clock(clock)
                .build();
        OutboxEndpoint endpoint = new OutboxEndpoint(monitor, coordinator, "node-a", admin, clock);
        coordinator.heartbeat();
        coordinator.rebalance();
        OutboxReport before = endpoint.outbox();
        assertThat(before.freshness().stale()).isFalse();

        hang.begin();
        clock.advance(Duration.ofSeconds(3));
        OutboxReport during = answered(endpoint::outbox);

        assertThat(during.freshness().takenAt()).isEqualTo(before.freshness().takenAt());
        assertThat(during.health()).as("not yet the stale-instance timeout").isEqualTo("UP");
        assertThat(during.freshness().stale()).isTrue();
        assertThat(during.freshness().failedRecordsStale()).isTrue();
        assertThat(during.freshness().snapshotAgeSeconds()).isEqualTo(3.0);
        assertThat(during.instance().ownedPartitions()).isEqualTo(256);
        assertThat(during.instances()).isEqualTo(before.instances());

        clock.advance(Duration.ofSeconds(10)); // since the hanging read began
        OutboxReport silent = answered(endpoint::outbox);
        assertThat(silent.health()).as("the judgement of outbox health").isEqualTo("DOWN");
        assertThat(silent.reason()).isEqualTo("the outbox tables have not answered for 10.0s "
                + "(outbox.instance.stale-instance-timeout-seconds: 10)");
    }

    @Test
    void theWriteOperationsAnswer503WithinTheirTimeoutWhileTheTablesHangAndDoNotPileUp() throws Exception {
        Duration timeout = Duration.ofMillis(500);
        OutboxAdmin admin = OutboxAdmin.builder().store(hang.wrap(records, RecordAdministration.class)).clock(clock)
                .build();
        OutboxEndpoint endpoint = new OutboxEndpoint(monitor, coordinator, "node-a", admin, clock, timeout);
        assertThat(endpoint.act("record-1", "retry").getBody()).as("answered before the hang")
                .isEqualTo(new AdminResult("retry", 0));

        hang.begin();
        List<Function<OutboxEndpoint, WebEndpointResponse<Object>>> operations = List.of(
                e -> e.act("record-1", "retry"),
                e -> e.actOnAll("retry-all", null, null, null, null, null, null, null, null),
                e -> e.act("record-1", "skip"), e -> e.act("record-1", "delete"));
        for (int i = 0; i < operations.size(); i++) {
            Function<OutboxEndpoint, WebEndpointResponse<Object>> operation = operations.get(i);
            long start = System.nanoTime();
            WebEndpointResponse<Object> response = answered(() -> operation.apply(endpoint));
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            boolean threadFree = i < OutboxEndpoint.OPERATIONS_IN_FLIGHT;
            assertThat(response.getStatus()).isEqualTo(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
            assertThat(response.getBody()).isInstanceOfSatisfying(AdminUnavailable.class,
                    unavailable -> assertThat(unavailable.error()).startsWith(threadFree
                            ? "the outbox tables did not answer within 0.5s; the " + unavailable.action()
                                    + " takes effect if they answer later"
                            : OutboxEndpoint.OPERATIONS_IN_FLIGHT
                                    + " earlier operations are still waiting for the outbox tables"));
            assertThat(took).as("answered within the timeout, not the pool's").isLessThan(Duration.ofSeconds(10));
        }
        assertThat(hang.blockedCalls()).as("operations waiting on the database").isEqualTo(
                OutboxEndpoint.OPERATIONS_IN_FLIGHT);
    }

    /**
     * CI once answered an operator's call 503 "2 earlier operations are still waiting" when both earlier calls had
     * been answered: their threads had not yet come back for work when the next call arrived.
     */
    @Test
    void operationsOneAfterAnotherAreNeverRefusedAsBusy() throws Exception {
        OutboxAdmin admin = OutboxAdmin.builder().store(records).clock(clock).build();
        OutboxEndpoint endpoint = new OutboxEndpoint(monitor, coordinator, "node-a", admin, clock);
        // busy cores, as on CI, are what leaves an answered operation's thread short of taking the next one
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> spinners = new ArrayList<>();
        for (int i = 0; i < 2 * Runtime.getRuntime().availableProcessors(); i++) {
            spinners.add(startDaemon(() -> {
                while (running.get()) {
                    Thread.onSpinWait();
                }
            }));
        }
        try {
            for (int i = 0; i < 20_000; i++) {
                WebEndpointResponse<Object> response = endpoint.act("record-" + i, "retry");
                assertThat(response.getBody()).as("operation %d", i).isEqualTo(new AdminResult("retry", 0));
            }
        } finally {
            running.set(false);
            for (Thread spinner : spinners) {
                spinner.join();
            }
        }
    }

    private static Thread startDaemon(Runnable work) {
        Thread thread = new Thread(work, "spinner");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    @Test
    void theWriteOperationsAnswer503NamingTheCauseWhenTheTablesRefuseRatherThan500() {
        RecordAdministration refusing = (RecordAdministration) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {RecordAdministration.class}, (proxy, method, args) -> {
                    throw new DataAccessResourceFailureException("Connection to 127.0.0.1:5432 refused");
                });
        OutboxAdmin admin = OutboxAdmin.builder().store(refusing).clock(clock).build();
        OutboxEndpoint endpoint = new OutboxEndpoint(monitor, coordinator, "node-a", admin, clock);

        for (WebEndpointResponse<Object> response : List.of(endpoint.act("record-1", "retry"),
                endpoint.act("record-1", "skip"), endpoint.act("record-1", "delete"),
                endpoint.actOnAll("retry-all", "Ping", null, null, null, null, null, null, null))) {
            assertThat(response.getStatus()).isEqualTo(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
            assertThat(response.getBody()).isInstanceOfSatisfying(AdminUnavailable.class,
                    unavailable -> assertThat(unavailable.error()).isEqualTo("the outbox tables are unavailable: "
                            + "org.springframework.dao.DataAccessResourceFailureException: Connection to "
                            + "127.0.0.1:5432 refused"));
        }
        assertThat(endpoint.act(" ", "retry").getStatus()).as("bad input is still the caller's fault")
                .isEqualTo(WebEndpointResponse.STATUS_BAD_REQUEST);
    }

    @Test
    void aReadThatLostItsConnectionCountsAsUnansweredWhileOneTheTablesRefusedIsDownAtOnce() throws Exception {
        AtomicReference<RuntimeException> failWith = new AtomicReference<>();
        RecordStatistics failing = (RecordStatistics) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {RecordStatistics.class}, (proxy, method, args) -> {
                    RuntimeException failure = failWith.get();
                    if (failure != null) {
                        throw failure;
                    }
                    return method.invoke(records, args);
                });
        OutboxMonitor refreshing = OutboxMonitor.builder().statistics(failing).ownership(coordinator)
                .instances(cluster, Duration.ofSeconds(10)).refreshInterval(Duration.ofSeconds(1)).clock(clock)
                .build();
        OutboxHealthIndicator indicator = new OutboxHealthIndicator(refreshing, null);
        assertThat(indicator.health(true).getStatus()).isEqualTo(Status.UP);

        // PostgreSQL's answer to pg_terminate_backend (SQL state 57P01), as Spring translates it
        failWith.set(new DataAccessResourceFailureException("terminating connection due to administrator command"));
        clock.advance(Duration.ofSeconds(2));
        Health connectionLost = healthAfterRefresh(indicator);
        assertThat(connectionLost.getStatus()).as("one lost connection, within the stale timeout").isEqualTo(Status.UP);
        assertThat(connectionLost.getDetails()).containsEntry("stale", true).containsEntry("error",
                "org.springframework.dao.DataAccessResourceFailureException: terminating connection due to "
                        + "administrator command");
        clock.advance(Duration.ofSeconds(10));
        assertThat(healthAfterRefresh(indicator).getDetails()).as("still lost after the stale timeout")
                .containsEntry("reason", "the outbox tables have not answered for 10.0s "
                        + "(outbox.instance.stale-instance-timeout-seconds: 10)");

        failWith.set(null);
        clock.advance(Duration.ofSeconds(2));
        await().atMost(PATIENCE).until(() -> indicator.health(true).getStatus().equals(Status.UP)
                && !indicator.health(true).getDetails().containsKey("stale"));

        failWith.set(new BadSqlGrammarException("statistics", "SELECT status, COUNT(*) FROM outbox_record",
                new SQLException("relation \"outbox_record\" does not exist", "42P01")));
        clock.advance(Duration.ofSeconds(2));
        Health tablesMissing = healthAfterRefresh(indicator);
        assertThat(tablesMissing.getStatus()).isEqualTo(Status.DOWN);
        assertThat(tablesMissing.getDetails()).containsEntry("reason", "reading the outbox tables failed");
    }

    /** Health once the refresh the clock made due has answered (here: failed). */
    private static Health healthAfterRefresh(OutboxHealthIndicator indicator) throws Exception {
        await().atMost(PATIENCE).until(() -> indicator.health(true).getDetails().containsKey("error"));
        return answered(() -> indicator.health(true));
    }

    /** The call's answer, which must come while the hang lasts. */
    private static <T> T answered(Supplier<T> call) throws Exception {
        return CompletableFuture.supplyAsync(call).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }
}
