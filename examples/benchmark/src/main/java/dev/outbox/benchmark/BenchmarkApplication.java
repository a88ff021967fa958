package dev.outbox.benchmark;

import dev.outbox.benchmark.node.BenchmarkNode;
import java.util.Arrays;

/**
 * Entry point of {@code outbox-benchmark.jar}. Without {@code --role} (or with {@code --role=driver}) it runs the
 * benchmark ({@link BenchmarkDriver}); with {@code --role=node} it is one processing instance ({@link BenchmarkNode}),
 * which the driver starts itself, as it does {@code --role=listen-reference} ({@link ListenReference}); with
 * {@code --publishers} it runs the publisher benchmark
 * ({@link PublisherBenchmark}); with {@code --write} the write benchmark ({@link WriteBenchmark}); with
 * {@code --latency} the latency from a node's start ({@link StartupLatency}); with {@code --bloat} the bloat benchmark
 * ({@link BloatBenchmark}); with {@code --console-queries} the operator console's queries
 * ({@link ConsoleQueryBenchmark}); with {@code --transactional} the transactional-handler benchmark
 * ({@link TransactionalBenchmark}).
 */
public final class BenchmarkApplication {

    private BenchmarkApplication() {
    }

    public static void main(String[] args) throws Exception {
        if (Arrays.asList(args).contains("--role=node")) {
            BenchmarkNode.run(args);
            return;
        }
        if (Arrays.asList(args).contains(ListenReference.ROLE)) {
            ListenReference.run(args);
            return;
        }
        if (Arrays.asList(args).contains(WriteBenchmark.FLAG)) {
            System.exit(runWrite(args));
            return;
        }
        if (Arrays.asList(args).contains(BloatBenchmark.FLAG)) {
            System.exit(runBloat(args));
            return;
        }
        if (Arrays.asList(args).contains(StartupLatency.FLAG)) {
            System.exit(runLatency(args));
            return;
        }
        if (Arrays.asList(args).contains(TransactionalBenchmark.FLAG)) {
            System.exit(runTransactional(args));
            return;
        }
        if (Arrays.asList(args).contains(ConsoleQueryBenchmark.FLAG)) {
            System.exit(runConsoleQueries(args));
            return;
        }
        if (Arrays.asList(args).contains(PublisherBenchmark.FLAG)) {
            System.exit(runPublishers(args));
            return;
        }
        BenchmarkOptions options;
        try {
            options = BenchmarkOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("outbox-benchmark: " + e.getMessage());
            System.err.println();
            System.err.println(BenchmarkOptions.usage());
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.println(BenchmarkOptions.usage());
            return;
        }
        int exitCode;
        try {
            exitCode = BenchmarkDriver.run(options).exitCode();
        } catch (RuntimeException e) {
            // Stopped by a signal (the shutdown hook has said so), or the run could not even start.
            if (!BenchmarkDriver.isStopped()) {
                System.err.println("outbox-benchmark: " + e);
                e.printStackTrace();
            }
            exitCode = 1;
        }
        System.exit(exitCode);
    }

    private static int runWrite(String[] args) {
        WriteBenchmark.Options options;
        try {
            options = WriteBenchmark.Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("outbox-benchmark --write: " + e.getMessage());
            return 2;
        }
        WriteBenchmark.run(options);
        return 0;
    }

    private static int runBloat(String[] args) throws InterruptedException {
        BloatBenchmark.Options options;
        try {
            options = BloatBenchmark.Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("outbox-benchmark --bloat: " + e.getMessage());
            return 2;
        }
        return BloatBenchmark.run(options).exitCode();
    }

    private static int runLatency(String[] args) throws InterruptedException {
        StartupLatency.Options options;
        try {
            options = StartupLatency.Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("outbox-benchmark --latency: " + e.getMessage());
            return 2;
        }
        return StartupLatency.run(options).passed() ? 0 : 3;
    }

    private static int runConsoleQueries(String[] args) {
        ConsoleQueryBenchmark.Options options;
        try {
            options = ConsoleQueryBenchmark.Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("outbox-benchmark --console-queries: " + e.getMessage());
            return 2;
        }
        return ConsoleQueryBenchmark.run(options);
    }

    private static int runPublishers(String[] args) {
        PublisherBenchmark.Options options;
        try {
            options = PublisherBenchmark.Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("outbox-benchmark --publishers: " + e.getMessage());
            return 2;
        }
        return PublisherBenchmark.run(options).passed() ? 0 : 3;
    }

    private static int runTransactional(String[] args) {
        TransactionalOptions options;
        try {
            options = TransactionalOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("outbox-benchmark --transactional: " + e.getMessage());
            System.err.println();
            System.err.println(TransactionalOptions.usage());
            return 2;
        }
        if (options.help()) {
            System.out.println(TransactionalOptions.usage());
            return 0;
        }
        return TransactionalBenchmark.run(options).exitCode();
    }
}
