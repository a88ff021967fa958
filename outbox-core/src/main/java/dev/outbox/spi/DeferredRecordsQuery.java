package dev.outbox.spi;

import dev.outbox.partition.OwnedPartitions;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * What {@link RecordStore#findDeferralsDue(DeferredRecordsQuery)} looks for: the records, addressed to handlers this
 * instance lacks, that need a decision now. A record qualifies when it is {@code NEW} in one of the partitions,
 * addressed to one of the handler ids, due ({@code next_retry_at <= now}), and either was never deferred (it needs
 * its first deferral) or was first deferred at or before {@code maxDeferralCutoff} (its wait ran out). A record
 * deferred more recently is left alone: it is neither read nor written again until then.
 *
 * @param partitions the partitions to look in; not empty
 * @param handlerIds the handler ids this instance lacks ({@code ""} for records addressed to no handler); not empty
 * @param now records with {@code next_retry_at <= now} are due
 * @param maxDeferralCutoff {@code now} minus {@code outbox.processing.max-deferral}
 * @param limit the most records to return, at least 1
 * @param headOfAggregateOnly whether only the first open ({@code NEW} or {@code FAILED}) record of each aggregate and
 *     handler qualifies: the records behind it wait for it
 * @since 0.1.0
 */
public record DeferredRecordsQuery(OwnedPartitions partitions, Set<String> handlerIds, Instant now,
        Instant maxDeferralCutoff, int limit, boolean headOfAggregateOnly) {

    public DeferredRecordsQuery {
        Objects.requireNonNull(partitions, "partitions");
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(maxDeferralCutoff, "maxDeferralCutoff");
        handlerIds = Set.copyOf(handlerIds);
        if (partitions.isEmpty()) {
            throw new IllegalArgumentException("partitions must not be empty");
        }
        if (handlerIds.isEmpty()) {
            throw new IllegalArgumentException("handlerIds must not be empty");
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1 but was " + limit);
        }
    }
}
