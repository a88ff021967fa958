package dev.outbox.example.orders.order;

import dev.outbox.Outbox;
import dev.outbox.example.orders.event.OrderCancelled;
import dev.outbox.example.orders.event.OrderCreated;
import dev.outbox.example.orders.event.OrderUpdated;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Creates, updates and cancels orders. Every operation changes the order and schedules one outbox event in the same
 * transaction: both are committed together, or, when a rule is broken or anything fails, neither is.
 */
@Service
public class OrderService {

    /** Amounts are stored as {@code DECIMAL(19,2)}. */
    static final int AMOUNT_SCALE = 2;
    private static final int AMOUNT_INTEGER_DIGITS = 17;
    private static final int CUSTOMER_MAX_LENGTH = 255;

    private final OrderRepository orders;
    private final Outbox outbox;
    private final Clock clock;

    public OrderService(OrderRepository orders, Outbox outbox, Clock clock) {
        this.orders = orders;
        this.outbox = outbox;
        this.clock = clock;
    }

    /** Places a new order and schedules {@link OrderCreated}. */
    @Transactional
    public Order create(@Nullable String customer, @Nullable BigDecimal amount) {
        String validCustomer = requireCustomer(customer);
        BigDecimal validAmount = requireAmount(amount);
        Order order = orders.save(Order.place(UUID.randomUUID().toString(), validCustomer, validAmount,
                now()));
        outbox.schedule(new OrderCreated(order.getId(), order.getCustomer(), order.getAmount()), order.getId());
        return order;
    }

    /**
     * Changes the amount of an order and schedules {@link OrderUpdated}. When {@code expectedVersion} is given it must
     * be the order's current version (optimistic locking for clients that read the order first).
     */
    @Transactional
    public Order updateAmount(String orderId, @Nullable BigDecimal amount, @Nullable Long expectedVersion) {
        BigDecimal validAmount = requireAmount(amount);
        Order order = find(orderId);
        if (expectedVersion != null && expectedVersion != order.getVersion()) {
            throw new OrderConflictException(orderId, "Order " + orderId + " is at version " + order.getVersion()
                    + ", not " + expectedVersion + "; read it again and retry");
        }
        BigDecimal previousAmount = order.getAmount();
        order.changeAmount(validAmount, now());
        outbox.schedule(new OrderUpdated(orderId, previousAmount, validAmount), orderId);
        return order;
    }

    /** Cancels an order and schedules {@link OrderCancelled}; a cancelled order cannot be cancelled again. */
    @Transactional
    public Order cancel(String orderId) {
        Order order = find(orderId);
        order.cancel(now());
        outbox.schedule(new OrderCancelled(orderId, order.getCustomer(), order.getAmount()), orderId);
        return order;
    }

    @Transactional(readOnly = true)
    public Order get(String orderId) {
        return find(orderId);
    }

    /** Microseconds: what the timestamp columns keep, so a returned order equals the one read back later. */
    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    private Order find(String orderId) {
        return orders.findById(orderId).orElseThrow(() -> new OrderNotFoundException(orderId));
    }

    private static String requireCustomer(@Nullable String customer) {
        if (customer == null || customer.isBlank()) {
            throw new InvalidOrderException("customer is required");
        }
        String trimmed = customer.strip();
        if (trimmed.codePointCount(0, trimmed.length()) > CUSTOMER_MAX_LENGTH) {
            throw new InvalidOrderException("customer must be at most " + CUSTOMER_MAX_LENGTH + " characters");
        }
        return trimmed;
    }

    private static BigDecimal requireAmount(@Nullable BigDecimal amount) {
        if (amount == null) {
            throw new InvalidOrderException("amount is required");
        }
        if (amount.signum() <= 0) {
            throw new InvalidOrderException("amount must be positive but was " + amount.toPlainString());
        }
        if (amount.stripTrailingZeros().scale() > AMOUNT_SCALE) {
            throw new InvalidOrderException("amount must have at most " + AMOUNT_SCALE + " decimal places but was "
                    + amount.toPlainString());
        }
        BigDecimal scaled = amount.setScale(AMOUNT_SCALE, RoundingMode.UNNECESSARY);
        if (scaled.precision() - scaled.scale() > AMOUNT_INTEGER_DIGITS) {
            throw new InvalidOrderException("amount must be below 10^" + AMOUNT_INTEGER_DIGITS);
        }
        return scaled;
    }
}
