package dev.outbox.events;

import java.util.Collection;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.context.event.SimpleApplicationEventMulticaster;
import org.springframework.core.ResolvableType;

/**
 * The application event multicaster for applications whose events for the outbox go to the outbox only: such an
 * event reaches the {@link OutboxEventListener} and no other listener of the application, while every other event
 * reaches its listeners as usual. Registered as the context's {@code applicationEventMulticaster}.
 */
public final class OutboxOnlyEventMulticaster extends SimpleApplicationEventMulticaster {

    private final Supplier<EventMappings> mappings;

    /** @param mappings looked up at the first event: the multicaster is created before most beans */
    public OutboxOnlyEventMulticaster(Supplier<EventMappings> mappings) {
        this.mappings = Objects.requireNonNull(mappings, "mappings");
    }

    @Override
    protected Collection<ApplicationListener<?>> getApplicationListeners(ApplicationEvent event,
            ResolvableType eventType) {
        Collection<ApplicationListener<?>> listeners = super.getApplicationListeners(event, eventType);
        if (!isForTheOutbox(event)) {
            return listeners;
        }
        return listeners.stream().filter(OutboxEventListener.class::isInstance).toList();
    }

    private boolean isForTheOutbox(@Nullable ApplicationEvent event) {
        return event instanceof PayloadApplicationEvent<?> payload
                && mappings.get().forClass(payload.getPayload().getClass()).isPresent();
    }
}
