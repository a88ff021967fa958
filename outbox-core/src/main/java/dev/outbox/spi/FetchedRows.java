package dev.outbox.spi;

import dev.outbox.OutboxRecord;
import java.util.List;

/**
 * What a read of the record table found: the rows that are records, and the rows that cannot be (see
 * {@link UnreadableRow}), each list in the order of the read.
 *
 * @since 0.1.0
 */
public record FetchedRows(List<OutboxRecord> records, List<UnreadableRow> unreadable) {

    public FetchedRows {
        records = List.copyOf(records);
        unreadable = List.copyOf(unreadable);
    }

    /** Only records. */
    public static FetchedRows of(List<OutboxRecord> records) {
        return new FetchedRows(records, List.of());
    }

    /** Every row read, readable or not. */
    public int size() {
        return records.size() + unreadable.size();
    }
}
