package dev.outbox.handler;

import dev.outbox.NonRetryableRecordException;
import dev.outbox.OutboxFallbackHandler;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.PayloadDeserializer;
import dev.outbox.processing.HandlerRoute;
import dev.outbox.processing.HandlerRoutes;
import dev.outbox.publish.PublisherRegistration;
import dev.outbox.spi.InstanceCapabilities;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The typed handlers of an application, and the routes the processing engine follows: a record addressed to a handler
 * is read into the handler's payload type and handed to it, under the handler's retry policy and fallback; a record
 * without a handler id goes to the application's own record processor, if it has one. Routes are made once per handler,
 * so resolving a record's route is one map lookup.
 *
 * <p>Records reach handlers through {@link #fanningOut(OutboxRecordRepository)}: saving an event whose type has
 * subscribers stores one record per subscriber, so that each has its own status, attempts and retry schedule, and one
 * handler's failure neither re-runs nor blocks another. Subscribers are fixed when a record is written: a handler
 * added later receives the events written after it was deployed.
 *
 * <p>Publishers ({@link PublisherRegistration}) are handlers too: a publisher subscribes to the event types it takes
 * (all of them by default) and gets records of its own, which the engine publishes in batches.
 *
 * <p>A record addressed to a handler this application does not have, or to no handler when it has no record processor,
 * waits for an instance that has one: during a rolling deploy, a newer version writes records that older instances
 * cannot take ({@link dev.outbox.processing.HandlerNotDeployedException}). Records that can never succeed fail at once,
 * without retries, with an error that says why: a handler that takes another event type now, or a payload that cannot
 * be read.
 */
public final class OutboxHandlers implements HandlerRoutes {

    private final Map<String, HandlerRegistration<?>> byId;
    private final Map<String, PublisherRegistration> publishersById;
    private final Map<String, HandlerRoute> routesById;
    private final Map<String, List<String>> idsByEventType;
    /** Publishers of every event type, subscribed to each after its own subscribers. */
    private final List<String> publishersOfAll;
    private final @Nullable OutboxRecordProcessor recordProcessor;
    private final @Nullable HandlerRoute recordProcessorRoute;
    private final @Nullable PayloadDeserializer deserializer;

    private OutboxHandlers(Builder builder) {
        // in registration order, which narrowing keeps (see only)
        this.byId = Collections.unmodifiableMap(new LinkedHashMap<>(builder.byId));
        this.publishersById = Collections.unmodifiableMap(new LinkedHashMap<>(builder.publishersById));
        this.deserializer = builder.deserializer;
        Map<String, List<String>> subscribers = new LinkedHashMap<>();
        Map<String, HandlerRoute> routes = new HashMap<>();
        builder.byId.values().forEach(handler -> {
            subscribers.computeIfAbsent(handler.getEventType(), type -> new ArrayList<>()).add(handler.getId());
            routes.put(handler.getId(), routeOf(handler));
        });
        List<String> publishersOfAll = new ArrayList<>();
        builder.publishersById.values().forEach(publisher -> {
            if (publisher.getEventTypes() == null) {
                publishersOfAll.add(publisher.getId());
            } else {
                publisher.getEventTypes().forEach(type -> subscribers.computeIfAbsent(type, t -> new ArrayList<>())
                        .add(publisher.getId()));
            }
            OutboxFallbackHandler fallback = publisher.getFallback();
            routes.put(publisher.getId(), HandlerRoute.publishingTo(publisher.getPublisher(),
                    publisher.getRetryPolicy(), fallback == null ? null : fallback::recover));
        });
        subscribers.replaceAll((type, ids) -> List.copyOf(ids));
        this.idsByEventType = Map.copyOf(subscribers);
        this.publishersOfAll = List.copyOf(publishersOfAll);
        this.routesById = Map.copyOf(routes);
        this.recordProcessor = builder.recordProcessor;
        this.recordProcessorRoute = builder.recordProcessor == null ? null : HandlerRoute.to(builder.recordProcessor);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The ids of the handlers and publishers subscribed to {@code eventType}, in registration order, publishers of
     * every event type last; empty when there is none.
     */
    public List<String> handlerIdsFor(String eventType) {
        List<String> subscribers = idsByEventType.getOrDefault(eventType, List.of());
        if (publishersOfAll.isEmpty()) {
            return subscribers;
        }
        List<String> all = new ArrayList<>(subscribers.size() + publishersOfAll.size());
        all.addAll(subscribers);
        all.addAll(publishersOfAll);
        return all;
    }

    /** The ids of the handlers and publishers. */
    public Set<String> handlerIds() {
        return routesById.keySet();
    }

    /**
     * These handlers narrowed to the handlers and publishers {@code handlerIds} names, with the same record processor
     * and deserializer: an outbox that takes only some of an application's handlers.
     *
     * @throws IllegalArgumentException naming the ids that are neither a handler nor a publisher here
     */
    public OutboxHandlers only(Collection<String> handlerIds) {
        Set<String> unknown = new TreeSet<>(handlerIds);
        unknown.removeAll(routesById.keySet());
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("no handler or publisher has the id(s) " + unknown + "; the ids are "
                    + new TreeSet<>(routesById.keySet()));
        }
        Builder narrowed = builder().recordProcessor(recordProcessor);
        if (deserializer != null) {
            narrowed.deserializer(deserializer);
        }
        byId.values().stream().filter(handler -> handlerIds.contains(handler.getId())).forEach(narrowed::handler);
        publishersById.values().stream().filter(publisher -> handlerIds.contains(publisher.getId()))
                .forEach(narrowed::publisher);
        return narrowed.build();
    }

    /** The ids of the transactional handlers ({@link HandlerRegistration#isTransactional()}). */
    @Override
    public Set<String> transactionalHandlerIds() {
        Set<String> ids = new TreeSet<>();
        byId.values().stream().filter(HandlerRegistration::isTransactional).forEach(h -> ids.add(h.getId()));
        return Collections.unmodifiableSet(ids);
    }

    /** The registered publishers by id. */
    public Map<String, PublisherRegistration> publishers() {
        return publishersById;
    }

    /**
     * A repository that stores one record per subscribed handler when a record without a handler id is saved, and
     * saves every other record as given. {@code save} returns the record of the first subscriber, under the id of the
     * record given; the others get ids of their own.
     */
    public OutboxRecordRepository fanningOut(OutboxRecordRepository repository) {
        return new FanOutRecordRepository(repository, this::handlerIdsFor);
    }

    /**
     * The route of a record: its handler's, or the record processor's for a record addressed to no handler. A record
     * that no handler of this application takes gets a {@linkplain HandlerRoute#notDeployed(String) not-deployed}
     * route, so that it waits for an instance of a version that has the handler; a record addressed to a handler that
     * takes another event type now gets a route that fails it at once, saying why.
     */
    @Override
    public HandlerRoute routeFor(OutboxRecord record) {
        String handlerId = record.getHandlerId();
        if (handlerId == null) {
            return recordProcessorRoute != null ? recordProcessorRoute : HandlerRoute.notDeployed("record "
                    + record.getId() + " of event type '" + record.getEventType() + "' is addressed to no handler, and "
                    + "this instance has no OutboxRecordProcessor" + subscribersHint(record.getEventType()));
        }
        HandlerRoute route = routesById.get(handlerId);
        if (route == null) {
            return HandlerRoute.notDeployed("record " + record.getId() + " of event type '" + record.getEventType()
                    + "' is addressed to handler '" + handlerId + "', which this instance does not have (its "
                    + "handlers: " + new TreeSet<>(routesById.keySet()) + ")");
        }
        PublisherRegistration publisher = publishersById.get(handlerId);
        if (publisher != null) {
            return publisher.takes(record.getEventType()) ? route : failing(new NonRetryableRecordException("record "
                    + record.getId() + " of event type '" + record.getEventType() + "' is addressed to publisher '"
                    + handlerId + "', which publishes " + new TreeSet<>(publisher.getEventTypes()) + " now"));
        }
        String eventType = byId.get(handlerId).getEventType();
        if (!eventType.equals(record.getEventType())) {
            return failing(new NonRetryableRecordException("record " + record.getId() + " of event type '"
                    + record.getEventType() + "' is addressed to handler '" + handlerId + "', which handles '"
                    + eventType + "' now"));
        }
        return route;
    }

    /**
     * What this application can process, for the instance table: its handler and publisher ids, the event types they
     * subscribe to, and whether a record processor takes the records addressed to no handler. No version.
     */
    public InstanceCapabilities capabilities() {
        return new InstanceCapabilities(routesById.keySet(), idsByEventType.keySet(), recordProcessorRoute != null,
                null);
    }

    private static HandlerRoute failing(NonRetryableRecordException reason) {
        return HandlerRoute.to(record -> {
            throw reason;
        });
    }

    private String subscribersHint(String eventType) {
        List<String> ids = handlerIdsFor(eventType);
        return ids.isEmpty() ? "" : " (handlers " + ids + " subscribe to the type now; records are addressed to "
                + "handlers when they are written)";
    }

    private <T> HandlerRoute routeOf(HandlerRegistration<T> handler) {
        OutboxFallbackHandler fallback = handler.getFallback();
        return new HandlerRoute(record -> handler.getHandler().handle(read(handler, record), RecordMetadata.of(record)),
                handler.getRetryPolicy(), fallback == null ? null : fallback::recover, null, null,
                handler.isTransactional());
    }

    @SuppressWarnings("unchecked")
    private <T> T read(HandlerRegistration<T> handler, OutboxRecord record) {
        PayloadDeserializer reader = Objects.requireNonNull(deserializer, "deserializer");
        Object event;
        try {
            event = reader.deserialize(record.getPayload(), handler.getPayloadType());
        } catch (Exception e) {
            throw new NonRetryableRecordException("payload of record " + record.getId() + " (event type '"
                    + record.getEventType() + "') cannot be read as " + handler.getPayloadType().getTypeName()
                    + " for handler '" + handler.getId() + "': " + e.getMessage(), e);
        }
        if (event == null) {
            throw new NonRetryableRecordException("payload of record " + record.getId() + " (event type '"
                    + record.getEventType() + "') reads as null; handler '" + handler.getId() + "' needs a "
                    + handler.getPayloadType().getTypeName());
        }
        return (T) event;
    }

    @Override
    public String toString() {
        return "OutboxHandlers" + idsByEventType + (publishersOfAll.isEmpty() ? "" : ", publishers of every event "
                + "type " + publishersOfAll) + (recordProcessorRoute == null ? "" : " and a record processor");
    }

    /** Not thread-safe. */
    public static final class Builder {

        private final Map<String, HandlerRegistration<?>> byId = new LinkedHashMap<>();
        private final Map<String, PublisherRegistration> publishersById = new LinkedHashMap<>();
        private @Nullable OutboxRecordProcessor recordProcessor;
        private @Nullable PayloadDeserializer deserializer;

        private Builder() {
        }

        /** Adds a handler; its id must be unique among handlers and publishers. */
        public Builder handler(HandlerRegistration<?> handler) {
            Objects.requireNonNull(handler, "handler must not be null");
            checkUnique(handler.getId(), handler);
            byId.put(handler.getId(), handler);
            return this;
        }

        /** Adds a publisher; its id must be unique among handlers and publishers. */
        public Builder publisher(PublisherRegistration publisher) {
            Objects.requireNonNull(publisher, "publisher must not be null");
            checkUnique(publisher.getId(), publisher);
            publishersById.put(publisher.getId(), publisher);
            return this;
        }

        public Builder publishers(Iterable<PublisherRegistration> publishers) {
            publishers.forEach(this::publisher);
            return this;
        }

        private void checkUnique(String id, Object registration) {
            Object previous = byId.containsKey(id) ? byId.get(id) : publishersById.get(id);
            if (previous != null) {
                throw new IllegalArgumentException("handler id '" + id + "' is registered twice: " + previous
                        + " and " + registration);
            }
        }

        public Builder handlers(Iterable<? extends HandlerRegistration<?>> handlers) {
            handlers.forEach(this::handler);
            return this;
        }

        /** Processes the records addressed to no handler: those of event types without subscribers. */
        public Builder recordProcessor(@Nullable OutboxRecordProcessor recordProcessor) {
            this.recordProcessor = recordProcessor;
            return this;
        }

        /** Reads payloads into the handlers' types; required when there are handlers. */
        public Builder deserializer(PayloadDeserializer deserializer) {
            this.deserializer = Objects.requireNonNull(deserializer, "deserializer");
            return this;
        }

        public OutboxHandlers build() {
            if (!byId.isEmpty() && deserializer == null) {
                throw new IllegalStateException("OutboxHandlers.builder(): deserializer is required with handlers "
                        + byId.keySet());
            }
            return new OutboxHandlers(this);
        }
    }
}
