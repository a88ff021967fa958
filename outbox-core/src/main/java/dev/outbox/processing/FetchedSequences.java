package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.UnreadableRow;
import java.util.function.LongBinaryOperator;
import org.jspecify.annotations.Nullable;

/** The lowest and highest sequences among fetched rows. */
final class FetchedSequences {

    private FetchedSequences() {
    }

    /** The lowest sequence among the rows, or null when there are none or one has no sequence to tell. */
    static @Nullable Long lowest(FetchedRows rows) {
        return reduce(rows, Long.MAX_VALUE, Math::min);
    }

    /** The highest sequence among the rows, or null when there are none or one has no sequence to tell. */
    static @Nullable Long highest(FetchedRows rows) {
        return reduce(rows, Long.MIN_VALUE, Math::max);
    }

    private static @Nullable Long reduce(FetchedRows rows, long none, LongBinaryOperator pick) {
        long result = none;
        for (OutboxRecord record : rows.records()) {
            Long sequence = record.getSequence();
            if (sequence == null) {
                return null;
            }
            result = pick.applyAsLong(result, sequence);
        }
        for (UnreadableRow row : rows.unreadable()) {
            Long sequence = row.sequence();
            if (sequence == null) {
                return null;
            }
            result = pick.applyAsLong(result, sequence);
        }
        return result == none ? null : result;
    }
}
