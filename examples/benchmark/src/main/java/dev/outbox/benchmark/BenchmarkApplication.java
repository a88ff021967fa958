package dev.outbox.benchmark;

import dev.outbox.benchmark.node.BenchmarkNode;
import java.util.Arrays;

/**
 * Entry point of {@code outbox-benchmark.jar}. Without {@code --role} (or with {@code --role=driver}) it runs the
 * benchmark ({@link BenchmarkDriver}); with {@code --role=node} it is one processing instance ({@link BenchmarkNode}),
 * which the driver starts itself.
 */
public final class BenchmarkApplication {

    private BenchmarkApplication() {
    }

    public static void main(String[] args) throws Exception {
        if (Arrays.asList(args).contains("--role=node")) {
            BenchmarkNode.run(args);
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
        System.exit(BenchmarkDriver.run(options).exitCode());
    }
}
