package dev.outbox.example.orders.web;

import java.time.Instant;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/** An event the outbox processor handled, with its payload as JSON. */
public record HandledEventResponse(String recordId, String eventType, @Nullable Long sequence, JsonNode payload,
        Instant handledAt) {
}
