package dev.outbox.boot.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.boot.events.EventsApplication.OwnListeners;
import dev.outbox.boot.events.ShopEvents.OrderPaid;
import dev.outbox.boot.events.ShopEvents.OrderPlaced;
import dev.outbox.boot.events.ShopEvents.PageViewed;
import dev.outbox.boot.events.ShopEvents.ShipmentSent;
import dev.outbox.boot.events.ShopEvents.TypeTooLong;
import dev.outbox.boot.events.ShopEvents.WrongExpression;
import dev.outbox.boot.testing.DatabasePerTestClass;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Events published with Spring's own API go through the outbox: one subclass per database. The application has no
 * outbox code: it publishes events, or saves a Spring Data aggregate that registered them.
 */
abstract class AbstractOutboxEventsTest extends DatabasePerTestClass {

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @BeforeEach
    final void emptyTables() {
        deleteRowsOf("outbox_record", "test_shipment");
    }

    @AfterEach
    final void closeContexts() {
        contexts.forEach(ConfigurableApplicationContext::close);
        contexts.clear();
    }

    @Test
    final void anEventPublishedInATransactionCommitsAndRollsBackWithTheBusinessChange() {
        ConfigurableApplicationContext app = start();
        ApplicationEventPublisher events = app;
        ShipmentRepository shipments = app.getBean(ShipmentRepository.class);

        inTransaction(app, () -> {
            shipments.save(new Shipment("shipment-1"));
            events.publishEvent(new OrderPlaced("order-1", 42));
            events.publishEvent(new OrderPaid("order-1", 42));
            events.publishEvent(new PageViewed("/orders/order-1"));
        });
        assertThatThrownBy(() -> inTransaction(app, () -> {
            shipments.save(new Shipment("shipment-2"));
            events.publishEvent(new OrderPlaced("order-2", 7));
            throw new IllegalStateException("business rule violated");
        })).hasMessage("business rule violated");

        assertThat(jdbc().queryForList("SELECT id FROM test_shipment", String.class)).containsExactly("shipment-1");
        assertThat(records(app, "order-2")).isEmpty();
        List<OutboxRecord> written = records(app, "order-1");
        assertThat(written).extracting(OutboxRecord::getEventType).containsExactly("OrderPlaced", "OrderPaid");
        assertThat(written.get(0).getPayload()).isEqualTo("{\"orderId\":\"order-1\",\"amount\":42}");
        assertThat(written.get(1).getPayload()).isEqualTo("{\"aggregateId\":\"order-1\",\"amount\":42}");
        assertThat(jdbc().queryForObject("SELECT COUNT(*) FROM outbox_record", Integer.class)).isEqualTo(2);

        OwnListeners own = app.getBean(OwnListeners.class);
        assertThat(own.received).as("the application's listeners still get every event")
                .containsExactly(new OrderPlaced("order-1", 42), new OrderPaid("order-1", 42),
                        new PageViewed("/orders/order-1"), new OrderPlaced("order-2", 7));
        assertThat(own.receivedAfterCommit).as("and after the commit, only the committed ones")
                .containsExactly(new OrderPlaced("order-1", 42), new OrderPaid("order-1", 42),
                        new PageViewed("/orders/order-1"));
    }

    @Test
    final void anAggregatesRegisteredEventsAreWrittenWhenItIsSavedInTheSameTransaction() {
        ConfigurableApplicationContext app = start();
        ShipmentRepository shipments = app.getBean(ShipmentRepository.class);

        inTransaction(app, () -> shipments.save(new Shipment("shipment-1").send("parcel-post")));
        assertThatThrownBy(() -> inTransaction(app, () -> {
            shipments.save(new Shipment("shipment-2").send("courier"));
            throw new IllegalStateException("business rule violated");
        })).hasMessage("business rule violated");
        // without a transaction of the caller's, save runs in one of its own and the event is written in it
        shipments.save(new Shipment("shipment-3").send("freight"));

        assertThat(jdbc().queryForList("SELECT id FROM test_shipment ORDER BY id", String.class))
                .containsExactly("shipment-1", "shipment-3");
        assertThat(records(app, "shipment-1")).singleElement().satisfies(record -> {
            assertThat(record.getEventType()).isEqualTo("shop.ShipmentSent");
            assertThat(record.getPayload()).isEqualTo("{\"shipmentId\":\"shipment-1\",\"carrier\":\"parcel-post\"}");
        });
        assertThat(records(app, "shipment-2")).isEmpty();
        assertThat(records(app, "shipment-3")).hasSize(1);
        assertThat(app.getBean(OwnListeners.class).receivedAfterCommit).containsExactly(
                new ShipmentSent("shipment-1", "parcel-post"), new ShipmentSent("shipment-3", "freight"));
    }

    @Test
    final void anEventPublishedOutsideATransactionFailsTheCallerAndNothingIsWritten() {
        ConfigurableApplicationContext app = start();

        assertThatThrownBy(() -> app.publishEvent(new OrderPlaced("order-1", 1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(OrderPlaced.class.getName() + " was published outside a transaction")
                .hasMessageContaining("outbox.events.outside-transaction=own-transaction");
        app.publishEvent(new PageViewed("/"));

        assertThat(jdbc().queryForObject("SELECT COUNT(*) FROM outbox_record", Integer.class)).isZero();
        assertThat(app.getBean(OwnListeners.class).received).as("refused before any listener ran")
                .containsExactly(new PageViewed("/"));
    }

    @Test
    final void withOwnTransactionsAnEventPublishedOutsideOneIsWrittenInItsOwn() {
        ConfigurableApplicationContext app = start("outbox.events.outside-transaction=own-transaction");

        app.publishEvent(new OrderPlaced("order-1", 1));

        assertThat(records(app, "order-1")).singleElement()
                .satisfies(record -> assertThat(record.getEventType()).isEqualTo("OrderPlaced"));
    }

    @Test
    final void anEventTheOutboxCannotTakeFailsAtPublishNamingItsClassAndNothingIsWritten() {
        ConfigurableApplicationContext app = start();
        ShipmentRepository shipments = app.getBean(ShipmentRepository.class);

        assertThatThrownBy(() -> inTransaction(app, () -> {
            shipments.save(new Shipment("shipment-1"));
            app.publishEvent(new WrongExpression("order-1"));
        })).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(WrongExpression.class.getName() + ": the aggregate id of "
                        + "@OutboxEvent(aggregateId = \"customerId\") could not be evaluated");
        assertThatThrownBy(() -> inTransaction(app, () -> app.publishEvent(new OrderPlaced(null, 1))))
                .hasMessage(OrderPlaced.class.getName() + ": the aggregate id of @OutboxEvent(aggregateId = "
                        + "\"orderId\") is null; an outbox record needs one");
        assertThatThrownBy(() -> inTransaction(app, () -> app.publishEvent(new TypeTooLong("order-1"))))
                .hasMessageStartingWith(TypeTooLong.class.getName() + " (@OutboxEvent(aggregateId = \"orderId\")): "
                        + "eventType");

        assertThat(jdbc().queryForObject("SELECT COUNT(*) FROM test_shipment", Integer.class)).isZero();
        assertThat(jdbc().queryForObject("SELECT COUNT(*) FROM outbox_record", Integer.class)).isZero();
    }

    @Test
    final void switchedOffTheEventsAreOnlyTheApplications() {
        ConfigurableApplicationContext app = start("outbox.events.enabled=false");

        inTransaction(app, () -> app.publishEvent(new OrderPlaced("order-1", 1)));

        assertThat(jdbc().queryForObject("SELECT COUNT(*) FROM outbox_record", Integer.class)).isZero();
        assertThat(app.getBean(OwnListeners.class).received).containsExactly(new OrderPlaced("order-1", 1));
    }

    @Test
    final void withoutLocalListenersTheOutboxIsTheOnlyPathOfItsEvents() {
        ConfigurableApplicationContext app = start("outbox.events.local-listeners=false");

        inTransaction(app, () -> {
            app.publishEvent(new OrderPlaced("order-1", 1));
            app.publishEvent(new PageViewed("/"));
        });

        assertThat(records(app, "order-1")).hasSize(1);
        OwnListeners own = app.getBean(OwnListeners.class);
        assertThat(own.received).containsExactly(new PageViewed("/"));
        assertThat(own.receivedAfterCommit).containsExactly(new PageViewed("/"));
    }

    private ConfigurableApplicationContext start(String... properties) {
        List<String> all = new ArrayList<>(dataSourceProperties());
        all.addAll(List.of("outbox.schema-initialization.enabled=true", "outbox.processing.enabled=false",
                "spring.jpa.hibernate.ddl-auto=create-drop", "spring.jpa.open-in-view=false",
                "spring.main.banner-mode=off"));
        all.addAll(List.of(properties));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(EventsApplication.class)
                .web(WebApplicationType.NONE).properties(all.toArray(String[]::new)).run();
        contexts.add(context);
        return context;
    }

    private static void inTransaction(ConfigurableApplicationContext app, Runnable work) {
        new TransactionTemplate(app.getBean(PlatformTransactionManager.class)).executeWithoutResult(status -> work.run());
    }

    private static List<OutboxRecord> records(ConfigurableApplicationContext app, String aggregateId) {
        return app.getBean(OutboxRecordRepository.class).findByAggregateId(aggregateId);
    }

    private JdbcTemplate jdbc() {
        return new JdbcTemplate(database().dataSource());
    }
}
