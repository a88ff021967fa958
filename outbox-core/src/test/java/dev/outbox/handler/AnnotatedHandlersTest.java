package dev.outbox.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.handler.OutboxHandlersTest.OrderPlaced;
import dev.outbox.handler.fixtures.RestrictedHandlers;
import dev.outbox.processing.HandlerInvocationException;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.testing.MutableClock;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AnnotatedHandlersTest {

    private static final OutboxRetryPolicy DEFAULT_POLICY = OutboxRetryPolicy.fixed(Duration.ofSeconds(5));

    public static class Handlers {
        final List<String> calls = new ArrayList<>();

        @OutboxHandler(id = "mailer", maxRetries = 7, fallback = "mailFailed")
        public void mail(RecordMetadata metadata, OrderPlaced event) {
            calls.add("mail " + event.orderId() + " attempt " + metadata.getAttempt());
        }

        @OutboxHandler(id = "audit", eventType = "OrderEvent", retryPolicy = "slow")
        public void audit(OrderPlaced event) throws IOException {
            throw new IOException("disk full");
        }

        public void mailFailed(Throwable failure, OutboxRecord record) {
            calls.add("fallback " + record.getId() + ": " + failure.getMessage());
        }
    }

    // GH-12: a public handler method of a package-private class failed every record with IllegalAccessException,
    // which was retried and stored as a handler failure.
    @Test
    void handlerMethodsAreCalledWhateverTheVisibilityOfTheirClass() throws Exception {
        RestrictedHandlers.CALLS.clear();
        HandlerRegistration<?> packagePrivate = AnnotatedHandlers.of(RestrictedHandlers.packagePrivate(),
                DEFAULT_POLICY).get(0);
        HandlerRegistration<?> privateNested = AnnotatedHandlers.of(RestrictedHandlers.privateNested(),
                DEFAULT_POLICY).get(0);
        OutboxRecord record = OutboxRecord.builder().aggregateId("A").eventType("Ping").payload("\"x\"")
                .build(MutableClock.startingNow());

        handle(packagePrivate, "hello", RecordMetadata.of(record));
        handle(privateNested, "hi", RecordMetadata.of(record));
        packagePrivate.getFallback().recover(record, new IllegalStateException("gone"));

        assertThat(RestrictedHandlers.CALLS).containsExactly("package-private: hello", "private-nested: hi",
                "package-private fallback: gone");
    }

    /** Through a JDK proxy, as an interface-based Spring AOP proxy is. */
    public interface Greeter {
        void greet(String text);
    }

    public static class GreeterHandler implements Greeter {
        final List<String> calls = new ArrayList<>();

        @Override
        @OutboxHandler(id = "greeter", eventType = "Ping")
        public void greet(String text) {
            calls.add("greet " + text);
        }
    }

    public static class GreeterWithAnotherHandler extends GreeterHandler {
        @OutboxHandler(id = "not-proxied", eventType = "Ping")
        public void notOnTheInterface(String text) {
            calls.add("not proxied " + text);
        }
    }

    @Test
    void aHandlerOfAnInterfaceProxiedBeanIsCalledThroughTheProxy() throws Exception {
        GreeterHandler target = new GreeterHandler();
        List<String> throughProxy = new ArrayList<>();
        Object proxy = proxy(target, throughProxy);

        HandlerRegistration<?> greeter = AnnotatedHandlers.of(GreeterHandler.class, proxy.getClass(), () -> proxy,
                DEFAULT_POLICY, name -> DEFAULT_POLICY).get(0);
        handle(greeter, "hello", RecordMetadata.of(OutboxRecord.builder().aggregateId("A").eventType("Ping")
                .payload("\"hello\"").build(MutableClock.startingNow())));

        assertThat(throughProxy).containsExactly("greet");
        assertThat(target.calls).containsExactly("greet hello");
    }

    @Test
    void aHandlerTheBeansProxyCannotReachStopsTheStartNamingTheMethod() {
        Object proxy = proxy(new GreeterWithAnotherHandler(), new ArrayList<>());

        assertThatThrownBy(() -> AnnotatedHandlers.of(GreeterWithAnotherHandler.class, proxy.getClass(),
                () -> proxy, DEFAULT_POLICY, name -> DEFAULT_POLICY))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("@OutboxHandler method " + GreeterWithAnotherHandler.class.getName()
                        + ".notOnTheInterface cannot be called on its bean");
    }

    private static Object proxy(Greeter target, List<String> calls) {
        return Proxy.newProxyInstance(AnnotatedHandlersTest.class.getClassLoader(), new Class<?>[] {Greeter.class},
                (self, method, arguments) -> {
                    calls.add(method.getName());
                    return method.invoke(target, arguments);
                });
    }

    @Test
    void aFailureOfTheCallMachineryIsAHandlerInvocationExceptionNotAHandlerFailure() {
        Object wrongBean = new Object();
        HandlerRegistration<?> packagePrivate = AnnotatedHandlers.of(RestrictedHandlers.packagePrivateType(),
                () -> wrongBean, DEFAULT_POLICY, name -> DEFAULT_POLICY).get(0);
        OutboxRecord record = OutboxRecord.builder().aggregateId("A").eventType("Ping").payload("\"x\"")
                .build(MutableClock.startingNow());

        assertThatThrownBy(() -> handle(packagePrivate, "x", RecordMetadata.of(record)))
                .isInstanceOf(HandlerInvocationException.class)
                .hasMessageStartingWith("the outbox could not call @OutboxHandler method "
                        + RestrictedHandlers.packagePrivateType().getName() + ".handle")
                .hasCauseInstanceOf(IllegalArgumentException.class);
    }

    public static class LedgerHandlers {
        @OutboxHandler(id = "ledger", transactional = true)
        public void book(OrderPlaced event) {
        }

        @OutboxHandler(id = "mailer")
        public void mail(OrderPlaced event) {
        }
    }

    @Test
    void aHandlerDeclaredTransactionalIsTransactionalAndOthersAreNot() {
        Map<String, HandlerRegistration<?>> byId = byId(AnnotatedHandlers.of(new LedgerHandlers(), DEFAULT_POLICY));

        assertThat(byId.get("ledger").isTransactional()).isTrue();
        assertThat(byId.get("mailer").isTransactional()).isFalse();
    }

    @Test
    void everyAnnotatedMethodBecomesARegistrationThatCallsIt() throws Exception {
        Handlers bean = new Handlers();
        OutboxRetryPolicy slow = OutboxRetryPolicy.fixed(Duration.ofMinutes(10));

        Map<String, HandlerRegistration<?>> byId = byId(AnnotatedHandlers.of(Handlers.class, () -> bean,
                DEFAULT_POLICY, Map.of("slow", slow)::get));

        HandlerRegistration<?> mailer = byId.get("mailer");
        assertThat(mailer.getEventType()).as("the payload class's simple name").isEqualTo("OrderPlaced");
        assertThat(mailer.getPayloadType()).isEqualTo(OrderPlaced.class);
        assertThat(mailer.getRetryPolicy().maxRetries()).hasValue(7);
        assertThat(mailer.getRetryPolicy().nextDelay(1)).as("the default policy, bounded")
                .isEqualTo(Duration.ofSeconds(5));
        OutboxRecord record = OutboxRecord.builder().aggregateId("A").eventType("OrderPlaced").payload("{1}")
                .build(MutableClock.startingNow()).toBuilder().retryCount(2).build();
        handle(mailer, new OrderPlaced("1"), RecordMetadata.of(record));
        mailer.getFallback().recover(record, new IllegalStateException("smtp refused"));
        assertThat(bean.calls).containsExactly("mail 1 attempt 3", "fallback " + record.getId() + ": smtp refused");

        HandlerRegistration<?> audit = byId.get("audit");
        assertThat(audit.getEventType()).isEqualTo("OrderEvent");
        assertThat(audit.getRetryPolicy()).isSameAs(slow);
        assertThat(audit.getFallback()).isNull();
        assertThatThrownBy(() -> handle(audit, new OrderPlaced("1"), RecordMetadata.of(record)))
                .as("the method's own exception, not a reflection wrapper")
                .isInstanceOf(IOException.class).hasMessage("disk full");
    }

    static class NotPublic {
        @OutboxHandler(id = "hidden")
        void handle(OrderPlaced event) {
        }
    }

    public static class TwoPayloads {
        @OutboxHandler(id = "two")
        public void handle(OrderPlaced event, String other) {
        }
    }

    public static class NoPayload {
        @OutboxHandler(id = "none")
        public void handle(RecordMetadata metadata) {
        }
    }

    public static class UnknownFallback {
        @OutboxHandler(id = "mailer", fallback = "missing")
        public void handle(OrderPlaced event) {
        }
    }

    public static class BadFallback {
        @OutboxHandler(id = "mailer", fallback = "recover")
        public void handle(OrderPlaced event) {
        }

        public void recover(OrderPlaced event) {
        }
    }

    public static class BadId {
        @OutboxHandler(id = "order mailer")
        public void handle(OrderPlaced event) {
        }
    }

    @Test
    void declarationMistakesFailAtStartupNamingTheMethod() {
        assertThatThrownBy(() -> AnnotatedHandlers.of(new NotPublic(), DEFAULT_POLICY))
                .hasMessage("@OutboxHandler method " + NotPublic.class.getName()
                        + ".handle must be a public instance method");
        assertThatThrownBy(() -> AnnotatedHandlers.of(new TwoPayloads(), DEFAULT_POLICY))
                .hasMessageContaining(TwoPayloads.class.getName() + ".handle has two payload parameters");
        assertThatThrownBy(() -> AnnotatedHandlers.of(new NoPayload(), DEFAULT_POLICY))
                .hasMessageContaining(".handle has no payload parameter");
        assertThatThrownBy(() -> AnnotatedHandlers.of(new UnknownFallback(), DEFAULT_POLICY))
                .hasMessageContaining("fallback 'missing' must name exactly one public method")
                .hasMessageContaining("but 0 have that name");
        assertThatThrownBy(() -> AnnotatedHandlers.of(new BadFallback(), DEFAULT_POLICY))
                .hasMessageContaining("fallback recover may take OutboxRecord, RecordMetadata and Throwable only, "
                        + "not " + OrderPlaced.class.getName());
        assertThatThrownBy(() -> AnnotatedHandlers.of(new BadId(), DEFAULT_POLICY))
                .hasMessageContaining("may contain only letters, digits");
        assertThatThrownBy(() -> AnnotatedHandlers.of(new Handlers(), DEFAULT_POLICY))
                .hasMessage("no retry policy named 'slow' is available");
    }

    @SuppressWarnings("unchecked")
    private static <T> void handle(HandlerRegistration<T> handler, Object event, RecordMetadata metadata)
            throws Exception {
        handler.getHandler().handle((T) event, metadata);
    }

    private static Map<String, HandlerRegistration<?>> byId(List<HandlerRegistration<?>> handlers) {
        Map<String, HandlerRegistration<?>> byId = new java.util.HashMap<>();
        handlers.forEach(handler -> byId.put(handler.getId(), handler));
        return byId;
    }
}
