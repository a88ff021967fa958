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
 * @param nextCursor what to pass as {@code after} for the next page; null when this page is the last one. A full
 *         last page gives a cursor whose page is empty.
 * @param searchCut whether the page stopped looking before it was full: a filtered page examines at most
 *         {@link OutboxAdmin#EXAMINED_PER_PAGE} FAILED records, so it may hold fewer rows than asked for, even none,
 *         while its next cursor goes on looking after the last record it examined
 * @since 0.1.0
 */
public record FailedRecordPage(FetchedRows rows, @Nullable String nextCursor, boolean searchCut) {

    /** A page that looked as far as it needed to. */
    public FailedRecordPage(FetchedRows rows, @Nullable String nextCursor) {
        this(rows, nextCursor, false);
    }

    public List<OutboxRecord> records() {
        return rows.records();
    }

    public List<UnreadableRow> unreadable() {
        return rows.unreadable();
    }
}
