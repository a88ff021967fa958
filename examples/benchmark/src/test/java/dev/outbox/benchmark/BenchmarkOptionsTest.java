package dev.outbox.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.benchmark.BenchmarkOptions.Statistics;
import org.junit.jupiter.api.Test;

/**
 * {@code --statistics}, and {@code --analyze} kept as its older spelling; {@code --warm-drain}; the publisher
 * benchmark's {@code --reference-window}.
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
}
