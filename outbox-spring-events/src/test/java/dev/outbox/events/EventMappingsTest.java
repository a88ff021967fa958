package dev.outbox.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.modulith.events.Externalized;

class EventMappingsTest {

    @OutboxEvent(aggregateId = "orderId")
    record OrderPlaced(String orderId, int total) {
    }

    @OutboxEvent(aggregateId = "'customer-' + customer.id()", eventType = "shop.CustomerMoved")
    record CustomerMoved(Customer customer) {
    }

    record Customer(long id) {
    }

    /** A JavaBean, as a Kotlin class compiles to: the property through its getter. */
    @OutboxEvent(aggregateId = "orderId")
    static final class OrderShippedBean {
        public String getOrderId() {
            return "order-7";
        }
    }

    record OrderPaid(String aggregateId) implements AggregateEvent {
    }

    @OutboxEvent(aggregateId = "orderId()")
    sealed interface PaymentEvent permits PaymentTaken, PaymentRefunded {
        String orderId();
    }

    record PaymentTaken(String orderId) implements PaymentEvent {
    }

    record PaymentRefunded(String orderId) implements PaymentEvent {
    }

    @Externalized("orders::#{#this.orderId()}")
    record OrderCancelled(String orderId) {
    }

    @Externalized("audit::everything")
    record AuditEntry(String text) {
    }

    record NotForTheOutbox(String orderId) {
    }

    @OutboxEvent(aggregateId = "#this.orderId(")
    record Unparsable(String orderId) {
    }

    @OutboxEvent(aggregateId = "customerId")
    record UnknownProperty(String orderId) {
    }

    @Externalized("orders")
    record WithoutKey(String orderId) {
    }

    @Externalized("#{#this.region()}::#{#this.orderId()}")
    record ComputedTarget(String region, String orderId) {
    }

    private final EventMappings mappings = EventMappings.create(getClass().getClassLoader());

    @Test
    void anAnnotatedEventGivesItsAggregateIdFromTheExpression() {
        EventMapping mapping = mappings.forClass(OrderPlaced.class).orElseThrow();
        assertThat(mapping.aggregateIdOf(new OrderPlaced("order-1", 10))).isEqualTo("order-1");
        assertThat(mapping.eventType()).as("the outbox's own").isNull();

        EventMapping moved = mappings.forClass(CustomerMoved.class).orElseThrow();
        assertThat(moved.aggregateIdOf(new CustomerMoved(new Customer(42)))).isEqualTo("customer-42");
        assertThat(moved.eventType()).isEqualTo("shop.CustomerMoved");

        assertThat(mappings.forClass(OrderShippedBean.class).orElseThrow().aggregateIdOf(new OrderShippedBean()))
                .isEqualTo("order-7");
    }

    @Test
    void theMarkOfAnInterfaceCoversTheClassesBelowIt() {
        assertThat(mappings.forClass(PaymentTaken.class).orElseThrow().aggregateIdOf(new PaymentTaken("order-4")))
                .isEqualTo("order-4");
        assertThat(mappings.forClass(PaymentRefunded.class).orElseThrow().eventType()).isNull();
    }

    @Test
    void anAggregateEventGivesItsOwnAggregateId() {
        EventMapping mapping = mappings.forClass(OrderPaid.class).orElseThrow();
        assertThat(mapping.aggregateIdOf(new OrderPaid("order-2"))).isEqualTo("order-2");
        assertThat(mapping.eventType()).isNull();
    }

    @Test
    void anExternalizedEventTakesItsKeyAsAggregateIdAndItsTargetAsDestination() {
        EventMapping mapping = mappings.forClass(OrderCancelled.class).orElseThrow();
        assertThat(mapping.aggregateIdOf(new OrderCancelled("order-3"))).isEqualTo("order-3");
        assertThat(mapping.eventType()).isEqualTo("OrderCancelled");
        assertThat(mappings.forClass(AuditEntry.class).orElseThrow().aggregateIdOf(new AuditEntry("x")))
                .as("a fixed key: one aggregate").isEqualTo("everything");

        ExternalizedEvents externalized = mappings.externalized().orElseThrow();
        assertThat(externalized.targetOf("OrderCancelled")).contains("orders");
        assertThat(externalized.targetOf("AuditEntry")).contains("audit");
        assertThat(externalized.targetOf("OrderPlaced")).isEmpty();
    }

    @Test
    void aScanFindsTheExternalizedEventsBeforeAnyIsPublished() {
        ClassLoader classLoader = getClass().getClassLoader();
        ExternalizedEvents externalized = EventMappings.create(classLoader).externalized().orElseThrow();
        assertThat(externalized.targetOf("ShipmentSent")).isEmpty();
        assertThat(externalized.scan(classLoader, List.of("dev.outbox.events.scanned"))).isOne();
        assertThat(externalized.targetOf("ShipmentSent")).contains("shipments");

        assertThatThrownBy(() -> externalized.scan(classLoader, List.of("dev.outbox.events")))
                .as("this package holds externalized events that cannot work")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageMatching("dev\\.outbox\\.events\\.EventMappingsTest\\$(WithoutKey|ComputedTarget): .*");
    }

    @Test
    void otherEventsAreNotTheOutboxs() {
        assertThat(mappings.forClass(NotForTheOutbox.class)).isEmpty();
        assertThat(mappings.forClass(String.class)).isEmpty();
    }

    @Test
    void aMarkThatCannotWorkIsRefusedNamingTheClassAndTheExpression() {
        assertThatThrownBy(() -> mappings.forClass(Unparsable.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(Unparsable.class.getName() + ": the aggregate id of "
                        + "@OutboxEvent(aggregateId = \"#this.orderId(\") is not a valid SpEL expression");

        EventMapping unknown = mappings.forClass(UnknownProperty.class).orElseThrow();
        assertThatThrownBy(() -> unknown.aggregateIdOf(new UnknownProperty("order-1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(UnknownProperty.class.getName() + ": the aggregate id of "
                        + "@OutboxEvent(aggregateId = \"customerId\") could not be evaluated")
                .hasMessageContaining("customerId");

        EventMapping placed = mappings.forClass(OrderPlaced.class).orElseThrow();
        assertThatThrownBy(() -> placed.aggregateIdOf(new OrderPlaced(null, 1)))
                .hasMessage(OrderPlaced.class.getName() + ": the aggregate id of @OutboxEvent(aggregateId = "
                        + "\"orderId\") is null; an outbox record needs one");
        assertThatThrownBy(() -> placed.aggregateIdOf(new OrderPlaced(" ", 1)))
                .hasMessageEndingWith("is blank; an outbox record needs one");

        assertThatThrownBy(() -> mappings.forClass(WithoutKey.class))
                .hasMessageStartingWith(WithoutKey.class.getName() + ": @Externalized(\"orders\") needs a target "
                        + "and a key");
        assertThatThrownBy(() -> mappings.forClass(ComputedTarget.class))
                .hasMessageContaining("is computed from the event");
    }
}
