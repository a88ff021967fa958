package dev.outbox.boot.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.boot.OutboxHandlersAutoConfiguration;
import dev.outbox.boot.OutboxProcessingAutoConfiguration;
import dev.outbox.boot.OutboxStoreAutoConfiguration;
import dev.outbox.boot.OutboxWriteAutoConfiguration;
import dev.outbox.boot.actuate.OutboxEndpoint.AdminError;
import dev.outbox.boot.actuate.OutboxEndpoint.AdminResult;
import dev.outbox.boot.actuate.OutboxEndpoint.PartitionsReport;
import dev.outbox.boot.actuate.OutboxEndpoint.UnknownListing;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.handler.HandlerRegistration;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.testing.InMemoryClusterStore;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class OutboxActuatorTest {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class,
                    org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration.class,
                    org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration.class,
                    OutboxStoreAutoConfiguration.class,
                    OutboxHandlersAutoConfiguration.class,
                    OutboxWriteAutoConfiguration.class,
                    OutboxProcessingAutoConfiguration.class,
                    OutboxActuatorAutoConfiguration.class))
            .withPropertyValues(
                    "spring.datasource.url=jdbc:h2:mem:actuator_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                    "spring.jpa.hibernate.ddl-auto=none",
                    "outbox.instance.id=node-a",
                    "outbox.instance.heartbeat-interval-seconds=1",
                    "outbox.instance.stale-instance-timeout-seconds=5",
                    "outbox.instance.new-instance-detection-interval-seconds=1",
                    "outbox.metrics.refresh-interval=100ms");

    @Test
    void theEndpointShowsThisInstanceTheClusterAndTheBacklog() {
        runner.withPropertyValues("outbox.schema-initialization.enabled=true", "outbox.retry.max-retries=0")
                .withUserConfiguration(FailingProcessor.class)
                .run(context -> {
                    context.getBean(Outbox.class).schedule(new Ping("x"), "order-1");
                    ClusterCoordinator coordinator = context.getBean(ClusterCoordinator.class);
                    await().atMost(PATIENCE).until(() -> coordinator.ownedPartitions().size() == 256);
                    OutboxEndpoint endpoint = context.getBean(OutboxEndpoint.class);
                    await().atMost(PATIENCE).until(() -> endpoint.outbox().failedRecords().count() == 1);

                    OutboxReport report = endpoint.outbox();

                    assertThat(report.health()).isEqualTo("UP");
                    assertThat(report.reason()).isNull();
                    assertThat(report.instance().id()).isEqualTo("node-a");
                    assertThat(report.instance().clustered()).isTrue();
                    assertThat(report.instance().inContact()).isTrue();
                    assertThat(report.instance().ownedPartitions()).isEqualTo(256);
                    assertThat(report.instances()).singleElement().satisfies(member -> {
                        assertThat(member.id()).isEqualTo("node-a");
                        assertThat(member.status()).isEqualTo("ACTIVE");
                        assertThat(member.heartbeatAgeSeconds()).isBetween(0.0, 5.0);
                        assertThat(member.ownedPartitions()).isEqualTo(256);
                    });
                    assertThat(report.unassignedPartitions()).isZero();
                    assertThat(report.backlog().pending()).isZero();
                    assertThat(report.backlog().records()).containsEntry("failed", 1L).containsEntry("new", 0L);
                    assertThat(report.backlog().oldestPending()).isNull();

                    WebEndpointResponse<Object> listed = endpoint.partitions("partitions");
                    assertThat(listed.getStatus()).isEqualTo(200);
                    PartitionsReport partitions = (PartitionsReport) listed.getBody();
                    assertThat(partitions.instance()).isEqualTo("node-a");
                    assertThat(partitions.epochs()).hasSize(256).containsEntry(0, 1L).containsEntry(255, 1L);
                    assertThat(partitions.byOwner()).containsOnlyKeys("node-a");
                    assertThat(partitions.byOwner().get("node-a")).hasSize(256);
                    assertThat(partitions.unassigned()).isEmpty();
                    assertThat(partitions.pending()).isEmpty();
                    WebEndpointResponse<Object> unknownListing = endpoint.partitions("partition");
                    assertThat(unknownListing.getStatus()).isEqualTo(404);
                    assertThat(unknownListing.getBody()).isEqualTo(new UnknownListing(
                            "no listing is named 'partition'; there is: partitions", List.of("partitions")));

                    Health health = context.getBean(OutboxHealthIndicator.class).health(true);
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails()).containsEntry("ownedPartitions", 256).containsEntry("failed", 1L)
                            .containsKey("lastHeartbeatSecondsAgo");

                    assertThat(report.failedRecords().count()).isEqualTo(1);
                    assertThat(report.failedRecords().oldest()).singleElement().satisfies(failed -> {
                        assertThat(failed.aggregateId()).isEqualTo("order-1");
                        assertThat(failed.lastError()).contains("downstream refuses");
                    });
                    String failedId = report.failedRecords().oldest().get(0).id();
                    assertThat(endpoint.act(failedId, "skip").getBody()).isEqualTo(new AdminResult("skip", 1));
                    assertThat(endpoint.outbox().failedRecords().oldest()).isEmpty();
                    assertThat(endpoint.act(failedId, "skip").getBody()).as("no longer FAILED")
                            .isEqualTo(new AdminResult("skip", 0));
                    assertThat(endpoint.act(failedId, "delete").getBody()).isEqualTo(new AdminResult("delete", 1));
                    assertThat(endpoint.actOnAll("retry-all", null, null, null, null, null, null, null, null)
                            .getBody())
                            .isEqualTo(new AdminResult("retry-all", 0));
                    context.getBean(Outbox.class).schedule(new Ping("y"), "order-2");
                    await().atMost(PATIENCE).until(() -> endpoint.outbox().failedRecords().oldest().stream()
                            .anyMatch(failed -> failed.aggregateId().equals("order-2")));
                    assertThat(endpoint.actOnAll("delete-all", null, null, null, "no such error", null, null, null,
                            null)
                            .getBody())
                            .isEqualTo(new AdminResult("delete-all", 0));
                    assertThat(endpoint.actOnAll("skip-all", null, "order-2", null, "DOWNSTREAM REFUSES", null, null,
                            null, null)
                            .getBody())
                            .isEqualTo(new AdminResult("skip-all", 1));
                    assertThat(endpoint.actOnAll("delete-all", null, null, null, null, null, null, null, null)
                            .getBody())
                            .as("the SKIPPED record stays").isEqualTo(new AdminResult("delete-all", 0));
                    assertThat(endpoint.outbox().failedRecords().oldest()).isEmpty();
                    WebEndpointResponse<Object> unknownBulk = endpoint.actOnAll("purge-all", null, null, null, null,
                            null, null, null, null);
                    assertThat(unknownBulk.getStatus()).isEqualTo(400);
                    assertThat(unknownBulk.getBody()).isEqualTo(new AdminError("unknown action 'purge-all'; allowed: "
                            + "retry-all, skip-all, delete-all", List.of("retry-all", "skip-all", "delete-all")));
                    WebEndpointResponse<Object> refused = endpoint.act(failedId, "purge");
                    assertThat(refused.getStatus()).isEqualTo(400);
                    assertThat(refused.getBody()).isEqualTo(new AdminError("unknown action 'purge'; allowed: retry,"
                            + " skip, delete", List.of("retry", "skip", "delete")));

                    coordinator.beginShutdown();
                    assertThat(context.getBean(OutboxHealthIndicator.class).health(true).getStatus())
                            .isEqualTo(Status.OUT_OF_SERVICE);
                    assertThat(endpoint.outbox().health()).isEqualTo("OUT_OF_SERVICE");
                    assertThat(endpoint.outbox().reason()).isEqualTo("this instance is shutting down");
                });
    }

    /**
     * Issue 30: the report of one instance owning the 256 partitions was 3,655 bytes of JSON, 2,800 of them its two
     * 256-entry listings (epochs, partitions by owner), with the backlog and the FAILED records last.
     */
    @Test
    void theReportLeadsWithHealthAndBacklogAndLeavesThePartitionListingsToTheirSubPath() {
        runner.withPropertyValues("outbox.schema-initialization.enabled=true", "outbox.retry.max-retries=0")
                .withUserConfiguration(FailingProcessor.class)
                .run(context -> {
                    context.getBean(Outbox.class).schedule(new Ping("x"), "order-1");
                    ClusterCoordinator coordinator = context.getBean(ClusterCoordinator.class);
                    await().atMost(PATIENCE).until(() -> coordinator.ownedPartitions().size() == 256);
                    OutboxEndpoint endpoint = context.getBean(OutboxEndpoint.class);
                    await().atMost(PATIENCE).until(() -> endpoint.outbox().failedRecords().count() == 1
                            && endpoint.outbox().instances().size() == 1);
                    // the mapper Spring MVC writes an endpoint's answer with
                    JsonMapper json = context.getBean(JsonMapper.class);

                    String report = json.writeValueAsString(endpoint.outbox());
                    String partitions = json.writeValueAsString(endpoint.partitions("partitions").getBody());

                    System.out.printf("/actuator/outbox: %,d bytes; /actuator/outbox/partitions: %,d bytes%n",
                            report.length(), partitions.length());
                    assertThat(report.length()).as(report).isLessThan(1_600);
                    assertThat(partitions.length()).as("the listings left out").isGreaterThan(2_000);
                    JsonNode tree = json.readTree(report);
                    assertThat(tree.propertyNames()).containsExactly("health", "reason", "backlog", "failedRecords",
                            "deferred", "freshness", "instance", "instances", "unassignedPartitions");
                    assertThat(tree.get("health").asString()).isEqualTo("UP");
                    assertThat(tree.get("backlog").propertyNames()).containsExactly("pending", "oldestPending",
                            "oldestPendingAgeSeconds", "pendingInOwnedPartitions", "records", "unknownStatuses");
                    assertThat(tree.get("failedRecords").get("count").asLong()).isEqualTo(1);
                    assertThat(tree.get("failedRecords").get("oldest").get(0).get("aggregateId").asString())
                            .isEqualTo("order-1");
                    assertThat(tree.get("instance").get("ownedPartitions").asInt()).isEqualTo(256);
                    assertThat(json.readTree(partitions).get("byOwner").get("node-a")).hasSize(256);
                });
    }

    @Test
    void recordsForAHandlerNoLiveInstanceHasAreShownAsDeferredAndUnhandled() {
        runner.withPropertyValues("outbox.schema-initialization.enabled=true", "outbox.instance.version=3.1.4",
                        "outbox.processing.deferral-interval=200ms")
                .withUserConfiguration(MailerHandler.class)
                .run(context -> {
                    OutboxRecord forLedger = context.getBean(OutboxRecordRepository.class).save(OutboxRecord.builder()
                            .aggregateId("order-1").eventType("Ping").payload("{\"value\":\"x\"}")
                            .handlerId("ledger").build(Clock.systemUTC()));
                    OutboxEndpoint endpoint = context.getBean(OutboxEndpoint.class);
                    await().atMost(PATIENCE).until(() -> endpoint.outbox().deferred().unhandled() == 1);

                    OutboxReport report = endpoint.outbox();
                    assertThat(report.deferred().records()).isEqualTo(1);
                    assertThat(report.deferred().byHandler()).singleElement().satisfies(deferred -> {
                        assertThat(deferred.handlerId()).isEqualTo("ledger");
                        assertThat(deferred.records()).isEqualTo(1);
                        assertThat(deferred.takenBy()).as("no live instance has it").isEmpty();
                        assertThat(deferred.oldestCreatedAt()).isEqualTo(context.getBean(OutboxRecordRepository.class)
                                .findById(forLedger.getId()).orElseThrow().getCreatedAt());
                    });
                    assertThat(report.instances()).singleElement().satisfies(member -> {
                        assertThat(member.version()).isEqualTo("3.1.4");
                        assertThat(member.handlerIds()).containsExactly("mailer");
                        assertThat(member.eventTypes()).containsExactly("Ping");
                        assertThat(member.recordProcessor()).isFalse();
                    });
                    OutboxRecordRepository records = context.getBean(OutboxRecordRepository.class);
                    await().atMost(PATIENCE).until(() -> records.findById(forLedger.getId()).orElseThrow()
                            .getLastError() != null);
                    OutboxRecord waiting = records.findById(forLedger.getId()).orElseThrow();
                    assertThat(waiting.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
                    assertThat(waiting.getRetryCount()).isZero();
                    assertThat(waiting.getLastError()).contains("addressed to handler 'ledger', which this instance "
                            + "does not have (its handlers: [mailer])");
                });
    }

    /** The bulk operations' time bounds reach the database: records inside them change, those outside do not. */
    @Test
    void bulkOperationsBoundedByTheLastAttemptsDueTimeChangeOnlyTheRecordsWithinTheBounds() {
        runner.withPropertyValues("outbox.schema-initialization.enabled=true", "outbox.processing.enabled=false")
                .run(context -> {
                    OutboxRecordRepository records = context.getBean(OutboxRecordRepository.class);
                    JdbcTemplate database = new JdbcTemplate(context.getBean(DataSource.class));
                    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
                    List<String> ids = new ArrayList<>();
                    for (int hoursAgo = 3; hoursAgo >= 1; hoursAgo--) {
                        String id = records.save(OutboxRecord.builder().aggregateId("order-" + hoursAgo)
                                .eventType("Ping").payload("{}").build(Clock.systemUTC())).getId();
                        database.update("UPDATE outbox_record SET status = 'FAILED', next_retry_at = ? WHERE id = ?",
                                Timestamp.from(now.minus(Duration.ofHours(hoursAgo))), id);
                        ids.add(id);
                    }
                    OutboxEndpoint endpoint = context.getBean(OutboxEndpoint.class);
                    String twoAndAHalfHoursAgo = now.minus(Duration.ofMinutes(150)).toString();
                    String ninetyMinutesAgo = now.minus(Duration.ofMinutes(90)).toString();

                    assertThat(endpoint.actOnAll("retry-all", null, null, null, null, twoAndAHalfHoursAgo,
                            ninetyMinutesAgo, null, null).getBody()).isEqualTo(new AdminResult("retry-all", 1));
                    assertThat(statuses(database, ids)).containsExactly("FAILED", "NEW", "FAILED");
                    assertThat(endpoint.actOnAll("retry-all", null, null, null, null,
                            now.minus(Duration.ofHours(1)).toString(), null, null, null).getBody())
                            .as("from is inclusive: the record due exactly 1 h ago").isEqualTo(
                                    new AdminResult("retry-all", 1));
                    assertThat(statuses(database, ids)).containsExactly("FAILED", "NEW", "NEW");
                    database.update("UPDATE outbox_record SET status = 'FAILED', next_retry_at = ? WHERE id = ?",
                            Timestamp.from(now.minus(Duration.ofHours(1))), ids.get(2));
                    assertThat(endpoint.actOnAll("skip-all", null, null, null, null, ninetyMinutesAgo, null, null, null)
                            .getBody()).isEqualTo(new AdminResult("skip-all", 1));
                    assertThat(endpoint.actOnAll("delete-all", null, null, null, null, null,
                            now.minus(Duration.ofHours(3)).toString(), null, null).getBody())
                            .as("before is exclusive").isEqualTo(new AdminResult("delete-all", 0));
                    assertThat(endpoint.actOnAll("delete-all", null, null, null, null, null, twoAndAHalfHoursAgo,
                            null, null)
                            .getBody()).isEqualTo(new AdminResult("delete-all", 1));
                    assertThat(database.queryForList("SELECT aggregate_id || '=' || status FROM outbox_record "
                            + "ORDER BY aggregate_id", String.class)).containsExactly("order-1=SKIPPED", "order-2=NEW");

                    for (List<String> bounds : List.of(List.of("an hour ago", ""), List.of("", "2026-02-30T00:00Z"),
                            List.of(ninetyMinutesAgo, twoAndAHalfHoursAgo))) {
                        WebEndpointResponse<Object> refused = endpoint.actOnAll("delete-all", null, null, null, null,
                                bounds.get(0), bounds.get(1), null, null);
                        assertThat(refused.getStatus()).isEqualTo(400);
                        assertThat(((AdminError) refused.getBody()).error())
                                .startsWith(bounds.get(0).isEmpty() ? "lastAttemptDueBefore" : "lastAttemptDueFrom");
                    }
                    assertThat(database.queryForObject("SELECT COUNT(*) FROM outbox_record", Integer.class))
                            .as("refused: nothing deleted").isEqualTo(2);
                });
    }

    /** The creation-time bounds reach the database: records created inside them change, those outside do not. */
    @Test
    void bulkOperationsBoundedByTheCreationTimeChangeOnlyTheRecordsCreatedWithinTheBounds() {
        runner.withPropertyValues("outbox.schema-initialization.enabled=true", "outbox.processing.enabled=false")
                .run(context -> {
                    OutboxRecordRepository records = context.getBean(OutboxRecordRepository.class);
                    JdbcTemplate database = new JdbcTemplate(context.getBean(DataSource.class));
                    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
                    List<String> ids = new ArrayList<>();
                    for (int hoursAgo = 3; hoursAgo >= 1; hoursAgo--) {
                        Clock createdThen = Clock.fixed(now.minus(Duration.ofHours(hoursAgo)), ZoneOffset.UTC);
                        ids.add(records.save(OutboxRecord.builder().aggregateId("order-" + hoursAgo)
                                .eventType("Ping").payload("{}").build(createdThen)).getId());
                    }
                    // their last attempts all fell due now: only the creation time tells them apart
                    database.update("UPDATE outbox_record SET status = 'FAILED', next_retry_at = ?",
                            Timestamp.from(now));
                    OutboxEndpoint endpoint = context.getBean(OutboxEndpoint.class);
                    String twoAndAHalfHoursAgo = now.minus(Duration.ofMinutes(150)).toString();
                    String ninetyMinutesAgo = now.minus(Duration.ofMinutes(90)).toString();

                    for (List<String> bounds : List.of(List.of("yesterday", ""), List.of("", "2026-02-30T00:00Z"),
                            List.of(ninetyMinutesAgo, twoAndAHalfHoursAgo), List.of(ninetyMinutesAgo,
                                    ninetyMinutesAgo))) {
                        WebEndpointResponse<Object> refused = endpoint.actOnAll("delete-all", null, null, null, null,
                                null, null, bounds.get(0), bounds.get(1));
                        assertThat(refused.getStatus()).isEqualTo(400);
                        String error = ((AdminError) refused.getBody()).error();
                        assertThat(error).startsWith(bounds.get(0).isEmpty() ? "createdBefore" : "createdFrom");
                        if (!bounds.get(0).isEmpty() && !bounds.get(1).isEmpty()) {
                            assertThat(error).as("a range holding no instant names both bounds")
                                    .isEqualTo("createdFrom (" + ninetyMinutesAgo + ") must be before createdBefore ("
                                            + bounds.get(1) + ")");
                        }
                    }
                    assertThat(statuses(database, ids)).as("refused: nothing changed")
                            .containsExactly("FAILED", "FAILED", "FAILED");

                    assertThat(endpoint.actOnAll("retry-all", null, null, null, null, null, null,
                            twoAndAHalfHoursAgo, ninetyMinutesAgo).getBody())
                            .isEqualTo(new AdminResult("retry-all", 1));
                    assertThat(statuses(database, ids)).containsExactly("FAILED", "NEW", "FAILED");
                    assertThat(endpoint.actOnAll("skip-all", null, null, null, null, null, null,
                            now.minus(Duration.ofHours(1)).toString(), null).getBody())
                            .as("from is inclusive: the record created exactly 1 h ago")
                            .isEqualTo(new AdminResult("skip-all", 1));
                    assertThat(endpoint.actOnAll("delete-all", null, null, null, null, null, null, null,
                            now.minus(Duration.ofHours(3)).toString()).getBody())
                            .as("before is exclusive").isEqualTo(new AdminResult("delete-all", 0));
                    assertThat(endpoint.actOnAll("delete-all", null, null, null, null, null, null, null,
                            twoAndAHalfHoursAgo).getBody()).isEqualTo(new AdminResult("delete-all", 1));
                    assertThat(database.queryForList("SELECT aggregate_id || '=' || status FROM outbox_record "
                            + "ORDER BY aggregate_id", String.class)).containsExactly("order-1=SKIPPED", "order-2=NEW");
                });
    }

    private static List<String> statuses(JdbcTemplate database, List<String> ids) {
        return ids.stream().map(id -> database.queryForObject("SELECT status FROM outbox_record WHERE id = ?",
                String.class, id)).toList();
    }

    @Test
    void healthIsDownWhenTheOutboxTablesAreMissing() {
        runner.withPropertyValues("outbox.schema-initialization.enabled=false", "outbox.processing.enabled=false")
                .run(context -> {
                    Health health = context.getBean(OutboxHealthIndicator.class).health(true);
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(health.getDetails().get("error").toString()).containsIgnoringCase("outbox_record");
                    OutboxReport report = context.getBean(OutboxEndpoint.class).outbox();
                    assertThat(report.health()).isEqualTo("DOWN");
                    assertThat(report.reason()).isEqualTo(health.getDetails().get("reason"))
                            .isEqualTo("reading the outbox tables failed");
                });
    }

    @Test
    void healthIsUnknownBeforeTheFirstHeartbeatAndDownOnceTheLeaseIsLost() {
        MutableClock clock = MutableClock.startingNow();
        InMemoryClusterStore cluster = new InMemoryClusterStore(clock);
        AtomicLong nanos = new AtomicLong(1_000_000_000L);
        ClusterCoordinator coordinator = ClusterCoordinator.builder().instanceStore(cluster).partitionStore(cluster)
                .instanceId("node-a").heartbeatInterval(Duration.ofSeconds(2)).staleTimeout(Duration.ofSeconds(10))
                .nanoClock(nanos::get).build();
        OutboxMonitor monitor = OutboxMonitor.builder().statistics(new InMemoryRecordStore()).ownership(coordinator)
                .clock(clock).build();
        OutboxHealthIndicator indicator = new OutboxHealthIndicator(monitor, coordinator);

        assertThat(indicator.health(true).getStatus()).isEqualTo(Status.UNKNOWN);
        coordinator.heartbeat();
        assertThat(indicator.health(true).getStatus()).isEqualTo(Status.UP);
        nanos.addAndGet(Duration.ofSeconds(8).toNanos());
        Health lost = indicator.health(true);
        assertThat(lost.getStatus()).isEqualTo(Status.DOWN);
        assertThat(lost.getDetails()).containsEntry("lastHeartbeatSecondsAgo", 8.0);
    }

    @Test
    void withoutBackgroundProcessingTheInstanceIsNotClusteredAndHealthy() {
        runner.withPropertyValues("outbox.schema-initialization.enabled=true", "outbox.processing.enabled=false")
                .run(context -> {
                    OutboxReport report = context.getBean(OutboxEndpoint.class).outbox();
                    assertThat(report.instance().clustered()).isFalse();
                    assertThat(report.instance().ownedPartitions()).as("no background processing").isZero();
                    assertThat(report.instance().id()).isEqualTo("node-a");
                    assertThat(report.instances()).isEmpty();
                    assertThat(context.getBean(OutboxHealthIndicator.class).health(true).getStatus())
                            .isEqualTo(Status.UP);
                });
    }

    record Ping(String value) {
    }

    static class MailerHandler {
        @Bean
        HandlerRegistration<Ping> mailer() {
            return HandlerRegistration.of("mailer", Ping.class, (ping, metadata) -> { });
        }
    }

    static class FailingProcessor {
        @Bean
        OutboxRecordProcessor failingProcessor() {
            return record -> {
                throw new IllegalStateException("downstream refuses " + record.getId());
            };
        }
    }
}
