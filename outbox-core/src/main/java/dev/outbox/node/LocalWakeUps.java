package dev.outbox.node;

import dev.outbox.spi.WakeUpSource;
import java.util.Collection;
import org.jspecify.annotations.Nullable;

/**
 * Wake-ups raised in this JVM: the write path tells which partitions a committed transaction wrote to, an operator's
 * retry tells that records are due again. Until a node starts it, or once it stopped, they go nowhere: the poll finds
 * the records all the same.
 */
public final class LocalWakeUps implements WakeUpSource {

    private volatile @Nullable Target target;

    @Override
    public void start(Target target) {
        this.target = target;
    }

    @Override
    public void close() {
        target = null;
    }

    /** A transaction that wrote records to {@code partitions} committed. */
    public void recordsCommitted(Collection<Integer> partitions) {
        Target current = target;
        if (current != null) {
            current.wakeUpFor(partitions);
        }
    }

    /** Records were made due (an operator retried FAILED ones, say). */
    public void recordsDue() {
        Target current = target;
        if (current != null) {
            current.wakeUp();
        }
    }
}
