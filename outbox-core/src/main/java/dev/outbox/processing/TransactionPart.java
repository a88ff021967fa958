package dev.outbox.processing;

import dev.outbox.spi.Delivery;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The records of a {@link TransactionalBatch} that one transaction takes: of each of some lanes, a run of consecutive
 * records. A part shrinks when something in it fails ({@link #cutAt}), and halves when its transaction fails for a
 * reason of its own ({@link #halves}); a lane's records keep their order across parts, its earlier part committing
 * before its later one runs ({@link #startable}). Immutable.
 */
final class TransactionPart {

    /** Records {@code from} (inclusive) to {@code to} (exclusive) of a lane, by their index in the lane's records. */
    record Segment(LaneWork work, int from, int to) {

        List<Delivery> deliveries() {
            return work.deliveries.subList(from, to);
        }

        int size() {
            return to - from;
        }
    }

    private final List<Segment> segments;

    private TransactionPart(List<Segment> segments) {
        this.segments = List.copyOf(segments);
    }

    /** The batch's first records, at most {@code maxRecords} in all: whole lanes but for the last. */
    static TransactionPart firstOf(TransactionalBatch batch) {
        List<Segment> segments = new ArrayList<>(batch.lanes.size());
        int room = batch.maxRecords;
        for (LaneWork work : batch.lanes) {
            int size = Math.min(work.deliveries.size(), room);
            if (size > 0) {
                segments.add(new Segment(work, 0, size));
            }
            room -= size;
        }
        return new TransactionPart(segments);
    }

    List<Segment> segments() {
        return segments;
    }

    boolean isEmpty() {
        return segments.isEmpty();
    }

    int records() {
        int records = 0;
        for (Segment segment : segments) {
            records += segment.size();
        }
        return records;
    }

    /**
     * The records that may run now: of each lane whose records before this part have all committed, its records as
     * long as they may start.
     *
     * @param committed how many of a lane's first records have committed
     */
    TransactionPart startable(ToIntFunction<LaneWork> committed, BiPredicate<LaneWork, Delivery> mayStart) {
        List<Segment> startable = new ArrayList<>(segments.size());
        for (Segment segment : segments) {
            if (committed.applyAsInt(segment.work()) != segment.from()) {
                continue; // an earlier record of the lane failed or stays NEW: so does this part of it
            }
            int to = segment.from();
            while (to < segment.to() && mayStart.test(segment.work(), segment.work().deliveries.get(to))) {
                to++;
            }
            if (to > segment.from()) {
                startable.add(new Segment(segment.work(), segment.from(), to));
            }
        }
        return new TransactionPart(startable);
    }

    /** This part without the lane's records from {@code index} on. */
    TransactionPart cutAt(LaneWork work, int index) {
        List<Segment> cut = new ArrayList<>(segments.size());
        for (Segment segment : segments) {
            if (segment.work() != work || index >= segment.to()) {
                cut.add(segment);
            } else if (index > segment.from()) {
                cut.add(new Segment(work, segment.from(), index));
            }
        }
        return new TransactionPart(cut);
    }

    /** The segment holding the delivery (by its id), or null when this part does not. */
    @Nullable Segment segmentOf(Delivery delivery) {
        for (Segment segment : segments) {
            for (Delivery planned : segment.deliveries()) {
                if (planned.id().equals(delivery.id())) {
                    return segment;
                }
            }
        }
        return null;
    }

    /** The index of the delivery in its lane's records; it must be in this part. */
    int indexOf(Delivery delivery) {
        Segment segment = segmentOf(delivery);
        if (segment == null) {
            throw new IllegalArgumentException("delivery " + delivery.id() + " is not in this part");
        }
        List<Delivery> deliveries = segment.deliveries();
        int index = 0;
        while (!deliveries.get(index).id().equals(delivery.id())) {
            index++;
        }
        return segment.from() + index;
    }

    /**
     * This part in two of about half its records each, to run one after the other: whole lanes while it has several,
     * else its one lane's first records and its last ones.
     *
     * @throws IllegalStateException when the part has a single record
     */
    List<TransactionPart> halves() {
        if (records() < 2) {
            throw new IllegalStateException("a part of " + records() + " record(s) cannot be halved");
        }
        if (segments.size() == 1) {
            Segment only = segments.get(0);
            int middle = only.from() + only.size() / 2;
            return List.of(new TransactionPart(List.of(new Segment(only.work(), only.from(), middle))),
                    new TransactionPart(List.of(new Segment(only.work(), middle, only.to()))));
        }
        int half = records() / 2;
        int lanes = 1;
        int taken = segments.get(0).size();
        while (lanes < segments.size() - 1 && taken + segments.get(lanes).size() <= half) {
            taken += segments.get(lanes).size();
            lanes++;
        }
        return List.of(new TransactionPart(segments.subList(0, lanes)),
                new TransactionPart(segments.subList(lanes, segments.size())));
    }

    @Override
    public String toString() {
        return records() + " record(s) of " + segments.size() + " lane(s)";
    }
}
