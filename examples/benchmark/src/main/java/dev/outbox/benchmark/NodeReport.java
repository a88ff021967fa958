package dev.outbox.benchmark;

import java.util.Map;

/**
 * What a node tells the driver, as a JSON file it rewrites every 200 ms and once more, {@code finished}, after its
 * context has stopped processing and its handler rows are flushed. A file, not the database: reporting must not add
 * queries to what the node is measured by.
 *
 * @param instanceId the node's {@code outbox.instance.id}
 * @param pid the node's process id
 * @param writtenAtMicros {@link BenchClock} time of this report
 * @param gateOpenedAtMicros when the node saw the start gate open, 0 before
 * @param gateHeldAtMicros when the node's gate was held (the hold file), no fetch in flight; 0 while not held
 * @param handlerCalls calls of the handler so far
 * @param rowsRecorded handler calls written to {@code bench_handled}
 * @param rowsPending handler calls not written yet
 * @param recordingFailures failed writes to {@code bench_handled} (retried)
 * @param completed {@code OutboxListener.onCompleted} calls: completions the store accepted
 * @param retries retries scheduled
 * @param failed records that became FAILED
 * @param rejected status writes the store refused (fencing, or the row changed)
 * @param statements JDBC statements executed through the application's data source, by type
 * @param statementsTotal the sum of {@code statements}
 * @param connectionsBorrowed connections taken from the application's data source
 * @param finished the context has closed and every handler row is flushed (or counted in rowsPending)
 */
public record NodeReport(String instanceId, long pid, long writtenAtMicros, long gateOpenedAtMicros,
        long gateHeldAtMicros, long handlerCalls, long rowsRecorded, long rowsPending, long recordingFailures,
        long completed, long retries, long failed, long rejected, Map<String, Long> statements, long statementsTotal,
        long connectionsBorrowed, boolean finished) {
}
