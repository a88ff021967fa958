package dev.outbox.spi;

import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * What an instance can process, as it writes it into the instance table when it registers: during a rolling deploy,
 * versions with different handlers run side by side, and this tells which records an instance defers for another to
 * handle.
 *
 * @param handlerIds the ids of its handlers and publishers
 * @param eventTypes the event types they subscribe to (publishers of every event type add none), for operators
 * @param recordProcessor whether it has a record processor, which takes the records addressed to no handler
 * @param version the application's version, or null when unknown; at most {@value #MAX_VERSION_LENGTH} characters
 */
public record InstanceCapabilities(Set<String> handlerIds, Set<String> eventTypes, boolean recordProcessor,
        @Nullable String version) {

    /** The longest {@link #version()}, the width of its column. */
    public static final int MAX_VERSION_LENGTH = 255;

    public InstanceCapabilities {
        handlerIds = sorted(Objects.requireNonNull(handlerIds, "handlerIds"));
        eventTypes = sorted(Objects.requireNonNull(eventTypes, "eventTypes"));
        if (version != null && version.length() > MAX_VERSION_LENGTH) {
            throw new IllegalArgumentException("version must be at most " + MAX_VERSION_LENGTH + " characters, was "
                    + version.length());
        }
    }

    /** Whether this instance takes a record addressed to {@code handlerId}; null is addressed to no handler. */
    public boolean takes(@Nullable String handlerId) {
        return handlerId == null ? recordProcessor : handlerIds.contains(handlerId);
    }

    public InstanceCapabilities withVersion(@Nullable String version) {
        return new InstanceCapabilities(handlerIds, eventTypes, recordProcessor, version);
    }

    private static SortedSet<String> sorted(Set<String> values) {
        return Collections.unmodifiableSortedSet(new TreeSet<>(values));
    }
}
