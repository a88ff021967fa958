package dev.outbox.benchmark;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The warm drain of a phase ({@code drainN.warm}): the node JVMs of the cold drain, still running, drain a second
 * backlog. They are held first (their gate closed again, every handler call written to {@code bench_handled}), then the
 * outbox and {@code bench_handled} are emptied, the backlog is written through the same writer and its statistics
 * prepared as for the cold drain, and the nodes are let go at one instant. Measured as the cold drain: the handler
 * calls counted from the release, the statements and CPU between release and done, the same checks. What differs is
 * what the nodes bring: code the JIT compiler has compiled, classes loaded, pools and caches filled.
 */
final class WarmDrain {

    static final String METHOD = "the cold drain's node JVMs, held once it was done (gate closed, every handler call"
            + " written), outbox_record and bench_handled emptied, the same number of records written and prepared as"
            + " for the cold drain, then let go at one instant; timed and checked as the cold drain";

    private final BacklogDrain drain;
    private final BenchDatabase database;
    private final BenchmarkOptions options;

    WarmDrain(BacklogDrain drain, BenchDatabase database, BenchmarkOptions options) {
        this.drain = drain;
        this.database = database;
        this.options = options;
    }

    /**
     * Runs the warm drain on {@code nodes}, held with {@code held} their reports of that moment, and stops them; a
     * failure is noted in the result (the cold drain's figures stand).
     */
    Map<String, Object> run(String phase, int nodeCount, BenchmarkOptions.Statistics statistics, NodeGroup nodes,
            List<NodeReport> held) throws InterruptedException {
        int records = options.records();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("method", METHOD);
        try {
            System.out.println("  warm drain: the same nodes, held; outbox_record and bench_handled emptied");
            database.emptyOutbox();
            drain.writeBacklog(phase + ", warm", statistics, result);
            long callsBefore = held.stream().mapToLong(NodeReport::handlerCalls).sum();
            long heldSince = held.stream().mapToLong(NodeReport::gateHeldAtMicros).max().orElse(0);
            BacklogDrain.Start start = drain.start(nodes, nodes::release, callsBefore, held);
            System.out.println("  released; go");
            result.put("heldSeconds", Stats.round((start.goMicros() - heldSince) / 1e6, 3));
            result.put("handlerCallsBefore", callsBefore);
            BacklogDrain.Drained drained = drain.awaitDrained(nodes, records, start);
            result.put("statements", drained.statements());
            nodes.stop();
            result.putAll(drain.timed(drained, records, nodeCount, ", warm"));
        } catch (RuntimeException e) {
            if (BenchmarkDriver.isStopped()) {
                throw e;
            }
            drain.warmDrainFailed(BacklogDrain.label(nodeCount) + ", warm", e, result);
        }
        return result;
    }
}
