package dev.outbox.benchmark.node;

import java.util.concurrent.atomic.AtomicLong;

/** The node's counters, read by {@link NodeReporter}. */
final class NodeState {

    final AtomicLong handlerCalls = new AtomicLong();
    final AtomicLong rowsRecorded = new AtomicLong();
    final AtomicLong rowsPending = new AtomicLong();
    final AtomicLong recordingFailures = new AtomicLong();
    final AtomicLong completed = new AtomicLong();
    final AtomicLong retries = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();
    final AtomicLong gateOpenedAtMicros = new AtomicLong();
    /** When the gate was last held with no fetch in flight; 0 while it is not held. */
    final AtomicLong gateHeldAtMicros = new AtomicLong();
    final AtomicLong connectionsBorrowed = new AtomicLong();
    final QueryCounter queries;

    NodeState(QueryCounter queries) {
        this.queries = queries;
    }
}
