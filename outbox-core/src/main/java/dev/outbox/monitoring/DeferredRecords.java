package dev.outbox.monitoring;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * NEW records addressed to one handler that the owners of their partitions do not have: they wait for an instance
 * that has it (during a rolling deploy, for the new version to take their partitions). When no live instance has the
 * handler, a deploy is stuck or a handler was removed, and they fail once {@code outbox.processing.max-deferral} has
 * passed since their first deferral.
 *
 * @param handlerId the handler they are addressed to, or null for records addressed to none (taken by a record
 *     processor)
 * @param records how many
 * @param oldestCreatedAt the oldest one's creation time
 * @param takenBy the live instances that have the handler, by id; empty when none has
 */
public record DeferredRecords(@Nullable String handlerId, long records, Instant oldestCreatedAt,
        List<String> takenBy) {

    public DeferredRecords {
        Objects.requireNonNull(oldestCreatedAt, "oldestCreatedAt");
        takenBy = List.copyOf(takenBy);
    }

    /** Whether no live instance has the handler. */
    public boolean unhandled() {
        return takenBy.isEmpty();
    }
}
