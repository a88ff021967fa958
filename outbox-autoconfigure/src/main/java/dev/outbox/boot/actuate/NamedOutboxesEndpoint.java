package dev.outbox.boot.actuate;

import dev.outbox.boot.NamedOutbox;
import dev.outbox.boot.NamedOutboxes;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * {@code /actuator/outboxes}: the report of {@code /actuator/outbox} for each outbox of {@code outbox.outboxes}, by
 * name; {@code /actuator/outboxes/{name}} for one. The write operations of {@code /actuator/outbox} are under
 * {@code /actuator/outboxes/{name}} and {@code /actuator/outboxes/{name}/{recordId}}, its per-partition listings under
 * {@code /actuator/outboxes/{name}/partitions}.
 */
@Endpoint(id = "outboxes")
public class NamedOutboxesEndpoint {

    private final Map<String, OutboxEndpoint> byName = new LinkedHashMap<>();

    public NamedOutboxesEndpoint(NamedOutboxes outboxes, String instanceId, Clock clock) {
        for (NamedOutbox outbox : outboxes.all()) {
            byName.put(outbox.name(), new OutboxEndpoint(outbox.monitor(), outbox.coordinator().orElse(null),
                    instanceId, outbox.admin(), clock));
        }
    }

    @ReadOperation
    public Map<String, OutboxReport> outboxes() {
        Map<String, OutboxReport> reports = new LinkedHashMap<>();
        byName.forEach((name, endpoint) -> reports.put(name, endpoint.outbox()));
        return reports;
    }

    /** One outbox's report; 404 for a name that is none. */
    @ReadOperation
    public @Nullable OutboxReport outbox(@Selector String name) {
        OutboxEndpoint endpoint = byName.get(name);
        return endpoint == null ? null : endpoint.outbox();
    }

    /**
     * {@code GET /actuator/outboxes/{name}/partitions}: as {@code GET /actuator/outbox/partitions}; 404 for a name
     * that is none.
     */
    @ReadOperation
    public WebEndpointResponse<Object> partitions(@Selector String name, @Selector String listing) {
        OutboxEndpoint endpoint = byName.get(name);
        return endpoint == null ? notFound(name) : endpoint.partitions(listing);
    }

    /** {@code POST /actuator/outboxes/{name}/{recordId}}: as {@code POST /actuator/outbox/{recordId}}. */
    @WriteOperation
    public WebEndpointResponse<Object> act(@Selector String name, @Selector String recordId, String action) {
        OutboxEndpoint endpoint = byName.get(name);
        return endpoint == null ? notFound(name) : endpoint.act(recordId, action);
    }

    /** {@code POST /actuator/outboxes/{name}}: as {@code POST /actuator/outbox}. */
    @WriteOperation
    public WebEndpointResponse<Object> actOnAll(@Selector String name, String action, @Nullable String eventType,
            @Nullable String aggregateId, @Nullable String handlerId, @Nullable String errorContains,
            @Nullable String lastAttemptDueFrom, @Nullable String lastAttemptDueBefore, @Nullable String createdFrom,
            @Nullable String createdBefore) {
        OutboxEndpoint endpoint = byName.get(name);
        return endpoint == null ? notFound(name) : endpoint.actOnAll(action, eventType, aggregateId, handlerId,
                errorContains, lastAttemptDueFrom, lastAttemptDueBefore, createdFrom, createdBefore);
    }

    private WebEndpointResponse<Object> notFound(String name) {
        return new WebEndpointResponse<>(new UnknownOutbox("no outbox is named " + EchoedInput.quoted(name),
                byName.keySet()), WebEndpointResponse.STATUS_NOT_FOUND);
    }

    /** The answer to an operation on an outbox that does not exist, with the names there are. */
    public record UnknownOutbox(String error, Set<String> outboxes) {
    }
}
