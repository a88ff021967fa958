package dev.outbox.spi;

import dev.outbox.OutboxRecord;
import dev.outbox.partition.Fence;
import java.util.Objects;

/**
 * A record handed out for processing, with the fence its outcome is stored under. The record carries the fence's
 * epoch ({@link OutboxRecord#getEpoch()}) for the handler; stores read the fence.
 *
 * @param record the record as read, handed to the handler
 * @param fence the owner and epoch of its partition when it was handed out
 */
public record Delivery(OutboxRecord record, Fence fence) {

    public Delivery {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(fence, "fence");
        if (fence.partition() != record.getPartition()) {
            throw new IllegalArgumentException("the fence of " + fence + " does not cover record " + record.getId()
                    + " of partition " + record.getPartition());
        }
    }

    /** The record handed out under its partition's fence, which it carries as its epoch. */
    public static Delivery of(OutboxRecord record, Fence fence) {
        return new Delivery(record.withEpoch(fence.epoch()), fence);
    }

    /** The record handed out without a fence: by an instance that owns every partition without coordination. */
    public static Delivery unfenced(OutboxRecord record) {
        return new Delivery(record, Fence.unfenced(record.getPartition()));
    }

    /** Shorthand for {@code record().getId()}. */
    public String id() {
        return record.getId();
    }
}
