package dev.outbox.admin;

import dev.outbox.OutboxRecord;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.UnreadableRow;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One page of FAILED records ({@link OutboxAdmin#failedPage}): the rows in the page's order, readable or not, and the
 * cursor of the next page.
 *
 * @param rows the records, and the FAILED rows that cannot be read as records, each list in the page's order
 * @param nextCursor what to pass as {@code after} for the next page; null when this page is the last one (it held
 *         fewer rows than asked for). A full last page gives a cursor whose page is empty.
 * @since 0.1.0
 */
public record FailedRecordPage(FetchedRows rows, @Nullable String nextCursor) {

    public List<OutboxRecord> records() {
        return rows.records();
    }

    public List<UnreadableRow> unreadable() {
        return rows.unreadable();
    }
}
