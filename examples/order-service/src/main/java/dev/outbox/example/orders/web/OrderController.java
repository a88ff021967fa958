package dev.outbox.example.orders.web;

import dev.outbox.example.orders.handling.HandledEventStore;
import dev.outbox.example.orders.order.Order;
import dev.outbox.example.orders.order.OrderService;
import java.net.URI;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/** {@code /orders}: create, update, cancel and read orders, and list the events handled for an order. */
@RestController
@RequestMapping("/orders")
public class OrderController {

    private final OrderService orders;
    private final HandledEventStore handledEvents;
    /** Reads stored payloads keeping decimals exact ({@code 25.50} stays {@code 25.50}). */
    private final ObjectReader payloadReader;

    public OrderController(OrderService orders, HandledEventStore handledEvents, JsonMapper jsonMapper) {
        this.orders = orders;
        this.handledEvents = handledEvents;
        this.payloadReader = jsonMapper.reader().with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    }

    @PostMapping
    public ResponseEntity<OrderResponse> create(@RequestBody CreateOrderRequest request) {
        Order order = orders.create(request.customer(), request.amount());
        return ResponseEntity.created(URI.create("/orders/" + order.getId())).body(OrderResponse.of(order));
    }

    @PutMapping("/{id}")
    public OrderResponse update(@PathVariable String id, @RequestBody UpdateOrderRequest request) {
        return OrderResponse.of(orders.updateAmount(id, request.amount(), request.version()));
    }

    @PostMapping("/{id}/cancel")
    public OrderResponse cancel(@PathVariable String id) {
        return OrderResponse.of(orders.cancel(id));
    }

    @GetMapping("/{id}")
    public OrderResponse get(@PathVariable String id) {
        return OrderResponse.of(orders.get(id));
    }

    /** What the outbox processor has handled for the order so far, in outbox order; empty until it runs. */
    @GetMapping("/{id}/events")
    public List<HandledEventResponse> events(@PathVariable String id) {
        orders.get(id); // 404 for an unknown order
        return handledEvents.findByAggregateId(id).stream()
                .map(event -> new HandledEventResponse(event.recordId(), event.eventType(), event.sequence(),
                        payloadReader.readTree(event.payload()), event.handledAt()))
                .toList();
    }
}
