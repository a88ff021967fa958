package dev.outbox.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.benchmark.BenchmarkOptions.Statistics;
import org.junit.jupiter.api.Test;

/**
 * {@code --statistics}, and {@code --analyze} kept as its older spelling; {@code --warm-drain}; the publisher
 * benchmark's {@code --reference-window}; the transactional benchmark's options.
 */
class BenchmarkOptionsTest {

    @Test
    void statisticsAreAnalyzedUnlessAskedOtherwise() {
        assertThat(BenchmarkOptions.defaults().statistics()).isEqualTo(Statistics.ANALYZED);
        assertThat(BenchmarkOptions.defaults().describe()).containsEntry("statistics", "analyzed");
    }

    @Test
    void eachModeIsParsedAndRecorded() {
        for (Statistics mode : Statistics.values()) {
            BenchmarkOptions options = BenchmarkOptions.parse(new String[] {"--statistics=" + mode.option()});
            assertThat(options.statistics()).isEqualTo(mode);
            assertThat(options.describe()).containsEntry("statistics", mode.option());
        }
    }

    @Test
    void analyzeFalseMeansNoStatisticsAndMustAgreeWithStatistics() {
        assertThat(BenchmarkOptions.parse(new String[] {"--analyze=false"}).statistics()).isEqualTo(Statistics.NONE);
        assertThat(BenchmarkOptions.parse(new String[] {"--analyze=true"}).statistics())
                .isEqualTo(Statistics.ANALYZED);
        assertThat(BenchmarkOptions.parse(new String[] {"--analyze=false", "--statistics=none"}).statistics())
                .isEqualTo(Statistics.NONE);
        assertThatThrownBy(() -> BenchmarkOptions.parse(new String[] {"--analyze=false", "--statistics=stale"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--analyze=false contradicts --statistics=stale");
    }

    @Test
    void theWarmDrainRunsUnlessTurnedOff() {
        assertThat(BenchmarkOptions.defaults().warmDrain()).isTrue();
        assertThat(BenchmarkOptions.defaults().describe()).containsEntry("warmDrain", true);
        assertThat(BenchmarkOptions.parse(new String[] {"--warm-drain=false"}).warmDrain()).isFalse();
        assertThatThrownBy(() -> BenchmarkOptions.parse(new String[] {"--warm-drain=no"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--warm-drain must be true or false but was 'no'");
    }

    @Test
    void anUnknownModeIsNamed() {
        assertThatThrownBy(() -> BenchmarkOptions.parse(new String[] {"--statistics=old"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--statistics must be analyzed, none or stale but was 'old'");
    }

    @Test
    void thePlainClientWindowIsTenBatchesUnlessGiven() {
        assertThat(PublisherBenchmark.Options.parse(new String[] {"--publishers"}).referenceWindow()).isEqualTo(1000);
        assertThat(PublisherBenchmark.Options.parse(new String[] {"--publishers",
            "--app-property=outbox.batch-size=500"}).referenceWindow()).isEqualTo(5000);
        assertThat(PublisherBenchmark.Options.parse(new String[] {"--publishers",
            "--app-property=outbox.batch-size=500", "--reference-window=64"}).referenceWindow()).isEqualTo(64);
    }

    @Test
    void theTransactionalBenchmarkDrainsAHundredThousandRecordsOnceByDefault() {
        TransactionalOptions options = TransactionalOptions.parse(new String[] {"--transactional"});
        assertThat(options.records()).isEqualTo(100_000);
        assertThat(options.aggregates()).isEqualTo(10_000);
        assertThat(options.repetitions()).isEqualTo(1);
        assertThat(options.warmupRecords()).as("as many as the drain").isEqualTo(100_000);
        assertThat(options.help()).isFalse();
        assertThat(options.describe()).containsEntry("records", 100_000).containsEntry("repetitions", 1)
                .doesNotContainKey("password");
    }

    @Test
    void theTransactionalBenchmarksOptionsAreParsed() {
        TransactionalOptions options = TransactionalOptions.parse(new String[] {"--transactional", "--records=20000",
            "--aggregates=500", "--repetitions=3", "--warmup-records=1000", "--drain-timeout-seconds=60",
            "--app-property=outbox.processing.transaction-group-size=50", "--help"});
        assertThat(options.records()).isEqualTo(20_000);
        assertThat(options.aggregates()).isEqualTo(500);
        assertThat(options.repetitions()).isEqualTo(3);
        assertThat(options.warmupRecords()).isEqualTo(1_000);
        assertThat(options.drainTimeoutSeconds()).isEqualTo(60);
        assertThat(options.appProperties()).containsExactly("outbox.processing.transaction-group-size=50");
        assertThat(options.help()).isTrue();
        assertThat(TransactionalOptions.usage()).contains("--repetitions=1", "--warmup-records");
    }

    @Test
    void theTransactionalBenchmarksBadOptionsAreNamedWithTheirLimit() {
        assertThatThrownBy(() -> TransactionalOptions.parse(new String[] {"--transactional", "--repetitions=0"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--repetitions must be positive, was 0");
        assertThatThrownBy(() -> TransactionalOptions.parse(new String[] {"--transactional", "--repetitions=21"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--repetitions must be at most 20, was 21");
        assertThatThrownBy(() -> TransactionalOptions.parse(new String[] {"--transactional", "--records=many"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--records must be a whole number, was 'many'");
        assertThatThrownBy(() -> TransactionalOptions.parse(new String[] {"--transactional", "--app-property=x"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--app-property needs key=value but got 'x'");
        assertThatThrownBy(() -> TransactionalOptions.parse(new String[] {"--transactional", "--url=jdbc:h2:mem:x"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--url must be a jdbc:postgresql:// URL but was jdbc:h2:mem:x");
        assertThatThrownBy(() -> TransactionalOptions.parse(new String[] {"--transactional", "--targets=noop"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown options [targets]");
    }
}
