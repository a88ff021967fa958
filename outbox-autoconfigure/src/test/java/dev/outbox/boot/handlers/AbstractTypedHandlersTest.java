package dev.outbox.boot.handlers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.boot.handlers.ShippingHandlers.Call;
import dev.outbox.boot.handlers.ShippingHandlers.OrderShipped;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.spi.FailedRecordFilter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Typed handlers through the starter, on a real database: {@code @OutboxHandler} methods found among the beans, one
 * record per subscribed handler, each with its own state, retry policy and fallback. One subclass per database.
 */
public abstract class AbstractTypedHandlersTest extends DatabasePerTestClass {

    private static final Duration DEADLINE = Duration.ofSeconds(120);

    private ConfigurableApplicationContext app;
    private ShippingHandlers handlers;

    @BeforeEach
    final void startApplication() {
        app = new SpringApplicationBuilder(HandlersApplication.class)
                .web(WebApplicationType.NONE)
                .properties(dataSourceProperties().toArray(String[]::new))
                .properties(
                        "spring.jpa.hibernate.ddl-auto=validate",
                        "spring.jpa.open-in-view=false",
                        "spring.main.banner-mode=off",
                        "outbox.schema-initialization.enabled=true",
                        "outbox.poll-interval=100ms",
                        "outbox.retry.policy=fixed",
                        "outbox.retry.fixed.delay=100ms",
                        "outbox.retry.max-retries=3")
                .run();
        handlers = app.getBean(ShippingHandlers.class);
    }

    @AfterEach
    final void stopApplication() {
        app.close();
        new JdbcTemplate(database().dataSource()).update("DELETE FROM outbox_record");
    }

    // GH-12: every record of a handler in a package-private class failed with IllegalAccessException, was retried
    // like a handler failure and went FAILED, parking its aggregate.
    @Test
    final void handlersOfAPackagePrivateClassAreCalledLikeAnyOther() {
        ReturnsDesk desk = app.getBean(ReturnsDesk.class);
        Outbox outbox = app.getBean(Outbox.class);
        outbox.schedule(new ReturnsDesk.ParcelReturned("order-r", 1), "order-r");
        outbox.schedule(new ReturnsDesk.ParcelReturned("order-r", -1), "order-r");
        outbox.schedule(new ReturnsDesk.ParcelReturned("order-r", 2), "order-r");

        await().atMost(DEADLINE).until(() -> repository().findByAggregateId("order-r").stream()
                .allMatch(record -> record.getStatus() == OutboxRecordStatus.COMPLETED));

        assertThat(desk.received).containsExactly("order-r/1", "order-r/2");
        assertThat(desk.lost).containsExactly("order-r: no parcel -1");
        assertThat(repository().findByAggregateId("order-r")).extracting(OutboxRecord::getRetryCount)
                .containsOnly(0);
    }

    @Test
    final void eachSubscribedHandlerGetsARecordOfItsOwnReadIntoItsParameterType() {
        OutboxRecord first = ship("order-1", 1);

        await().atMost(DEADLINE).until(() -> statuses().getOrDefault(OutboxRecordStatus.COMPLETED, 0L) == 3);

        List<OutboxRecord> rows = repository().findByAggregateId("order-1");
        assertThat(rows).as("one bean's handlers subscribe in the order of their ids")
                .extracting(OutboxRecord::getHandlerId).containsExactly("customs", "ledger", "mailer");
        assertThat(rows.get(0).getId()).isEqualTo(first.getId());
        assertThat(handlers.calls).extracting(Call::handler).containsExactlyInAnyOrder("mailer", "ledger", "customs");
        assertThat(handlers.calls).extracting(Call::parcel).containsOnly(1);
    }

    @Test
    final void aFailingHandlerNeitherBlocksNorReRunsTheOtherHandlersAndCatchesUpInOrder() {
        handlers.ledgerRefuses.add(1);
        for (int parcel = 1; parcel <= 3; parcel++) {
            ship("order-2", parcel);
        }

        await().atMost(DEADLINE).until(() -> handlers.parcels("mailer", "order-2").size() == 3
                && handlers.parcels("customs", "order-2").size() == 3
                && handlers.calls.stream().filter(call -> call.handler().equals("ledger")).count() >= 5);
        assertThat(handlers.parcels("mailer", "order-2")).containsExactly(1, 2, 3);
        assertThat(handlers.parcels("ledger", "order-2")).as("the ledger retries parcel 1 only; 2 and 3 wait")
                .containsOnly(1);
        assertThat(ledgerRecord(1).getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(ledgerRecord(1).getRetryCount()).as("more than max-retries 3: the ledger's own policy")
                .isGreaterThanOrEqualTo(4);

        handlers.ledgerRefuses.clear();
        await().atMost(DEADLINE).until(() -> statuses().getOrDefault(OutboxRecordStatus.COMPLETED, 0L) == 9);

        List<Integer> ledger = handlers.parcels("ledger", "order-2");
        assertThat(ledger.subList(ledger.indexOf(2) - 1, ledger.size())).containsExactly(1, 2, 3);
        assertThat(handlers.parcels("mailer", "order-2")).as("not re-run").containsExactly(1, 2, 3);
        assertThat(handlers.parcels("customs", "order-2")).as("not re-run").containsExactly(1, 2, 3);
    }

    @Test
    final void aParkedAggregateOfOneHandlerFlowsAgainAfterSkipAndRetryAll() {
        handlers.customsRefuses.add(1);
        handlers.customsRefuses.add(3);
        ship("order-3", 1);
        ship("order-3", 2);
        ship("order-4", 3);
        ship("order-4", 4);

        await().atMost(DEADLINE).until(() -> failed("customs").size() == 2
                && statuses().getOrDefault(OutboxRecordStatus.COMPLETED, 0L) == 8);
        assertThat(handlers.parcels("customs", "order-3")).as("maxRetries = 0; parcel 2 parked behind it")
                .containsExactly(1);
        assertThat(handlers.parcels("customs", "order-4")).containsExactly(3);
        assertThat(failed("customs").get(0).getLastError()).contains("customs refuses parcel 1")
                .contains("no fallback for order-3");
        assertThat(handlers.parcels("mailer", "order-3")).containsExactly(1, 2);

        OutboxAdmin admin = app.getBean(OutboxAdmin.class);
        assertThat(admin.skip(failed("customs").get(0).getId())).isTrue();
        await().atMost(DEADLINE).until(() -> handlers.parcels("customs", "order-3").size() == 2);
        assertThat(handlers.parcels("customs", "order-3")).containsExactly(1, 2);

        handlers.customsRefuses.clear();
        assertThat(admin.retryAll(FailedRecordFilter.any().withHandlerId("mailer"))).as("not the mailer's").isZero();
        assertThat(admin.retryAll(FailedRecordFilter.any().withHandlerId("customs"))).isEqualTo(1);
        await().atMost(DEADLINE).until(() -> handlers.parcels("customs", "order-4").size() == 3);
        assertThat(handlers.parcels("customs", "order-4")).containsExactly(3, 3, 4);
        assertThat(failed("customs")).isEmpty();
    }

    @Test
    final void aFallbackTakesARecordThatFailedForGoodAndTheAggregateGoesOn() {
        handlers.customsRefuses.add(5);
        handlers.fallbackAggregates.add("order-5");
        ship("order-5", 5);
        ship("order-5", 6);

        await().atMost(DEADLINE).until(() -> handlers.parcels("customs", "order-5").size() == 2);

        assertThat(handlers.fallbacks).containsExactly("order-5: customs refuses parcel 5");
        assertThat(handlers.parcels("customs", "order-5")).containsExactly(5, 6);
        await().atMost(DEADLINE).until(() -> statuses().getOrDefault(OutboxRecordStatus.COMPLETED, 0L) == 6);
    }

    @Test
    final void aPayloadThatCannotBeReadFailsOnceForEveryHandlerWithAClearError() {
        OutboxRecordRepository repository = repository();
        new TransactionTemplate(app.getBean(PlatformTransactionManager.class)).executeWithoutResult(status ->
                repository.save(OutboxRecord.builder().aggregateId("order-6").eventType("OrderShipped")
                        .payload("{\"orderId\": \"order-6\", \"parcel\": \"seven\"}").build(Clock.systemUTC())));

        await().atMost(DEADLINE).until(() -> statuses().getOrDefault(OutboxRecordStatus.FAILED, 0L) == 3);

        List<OutboxRecord> rows = repository.findByAggregateId("order-6");
        assertThat(rows).hasSize(3).allSatisfy(row -> {
            assertThat(row.getRetryCount()).as("no retries").isZero();
            assertThat(row.getLastError()).contains("NonRetryableRecordException")
                    .contains("cannot be read as " + OrderShipped.class.getName())
                    .contains("handler '" + row.getHandlerId() + "'");
        });
        assertThat(handlers.calls).isEmpty();
    }

    @Test
    final void aDelayedRecordIsNotHandledEarlyAndItsSuccessorsWaitBehindIt() {
        Outbox outbox = app.getBean(Outbox.class);
        Instant availableAt = Instant.now().plusSeconds(2);
        transactions().executeWithoutResult(status -> {
            outbox.scheduleAt(new OrderShipped("order-7", 7), "order-7", availableAt);
            outbox.schedule(new OrderShipped("order-7", 8), "order-7");
            outbox.schedule(new OrderShipped("order-8", 9), "order-8");
        });

        await().atMost(DEADLINE).until(() -> handlers.parcels("mailer", "order-7").size() == 2
                && handlers.parcels("mailer", "order-8").size() == 1);

        Map<Integer, Instant> mailed = handlers.calls.stream()
                .filter(call -> call.handler().equals("mailer"))
                .collect(Collectors.toMap(Call::parcel, Call::at));
        assertThat(mailed.get(7)).as("not before its time").isAfterOrEqualTo(availableAt);
        assertThat(handlers.parcels("mailer", "order-7")).as("its successor waited").containsExactly(7, 8);
        assertThat(mailed.get(8)).isAfterOrEqualTo(mailed.get(7));
    }

    private OutboxRecord ship(String orderId, int parcel) {
        Outbox outbox = app.getBean(Outbox.class);
        return transactions().execute(status -> outbox.schedule(new OrderShipped(orderId, parcel), orderId));
    }

    private TransactionTemplate transactions() {
        return new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
    }

    private OutboxRecordRepository repository() {
        return app.getBean(OutboxRecordRepository.class);
    }

    private OutboxRecord ledgerRecord(int parcel) {
        return repository().findByAggregateId("order-2").stream()
                .filter(row -> "ledger".equals(row.getHandlerId()) && row.getPayload().contains("\"parcel\":" + parcel))
                .findFirst().orElseThrow();
    }

    private List<OutboxRecord> failed(String handlerId) {
        return app.getBean(OutboxAdmin.class).failedRecords(FailedRecordFilter.any().withHandlerId(handlerId), 100);
    }

    private Map<OutboxRecordStatus, Long> statuses() {
        return new JdbcTemplate(database().dataSource()).queryForList("SELECT status FROM outbox_record", String.class)
                .stream().collect(Collectors.groupingBy(OutboxRecordStatus::valueOf, Collectors.counting()));
    }
}
