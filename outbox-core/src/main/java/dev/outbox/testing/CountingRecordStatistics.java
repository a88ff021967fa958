package dev.outbox.testing;

import dev.outbox.OutboxRecordStatus;
import dev.outbox.spi.PartitionBacklog;
import dev.outbox.spi.RecordStatistics;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * {@link RecordStatistics} that counts the queries it is asked for and can be made to fail, to test what monitoring
 * costs the database and how it behaves during an outage.
 */
public final class CountingRecordStatistics implements RecordStatistics {

    private final RecordStatistics delegate;
    private final AtomicInteger queries = new AtomicInteger();
    private volatile @Nullable RuntimeException failure;

    public CountingRecordStatistics(RecordStatistics delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** Queries asked for so far, failed ones included. */
    public int queries() {
        return queries.get();
    }

    /** From now on every query throws {@code failure}; null makes them answer again. */
    public void failWith(@Nullable RuntimeException failure) {
        this.failure = failure;
    }

    @Override
    public Map<OutboxRecordStatus, Long> countByStatus() {
        query();
        return delegate.countByStatus();
    }

    @Override
    public Map<String, Long> countByStoredStatus() {
        query();
        return delegate.countByStoredStatus();
    }

    @Override
    public Map<String, Long> countByStoredStatusExceptCompleted() {
        query();
        return delegate.countByStoredStatusExceptCompleted();
    }

    @Override
    public List<PartitionBacklog> pendingByPartitionAndHandler() {
        query();
        return delegate.pendingByPartitionAndHandler();
    }

    private void query() {
        queries.incrementAndGet();
        RuntimeException current = failure;
        if (current != null) {
            throw current;
        }
    }
}
