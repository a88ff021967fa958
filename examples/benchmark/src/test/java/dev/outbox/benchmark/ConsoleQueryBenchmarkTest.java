package dev.outbox.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The console benchmark with a tiny table, so that the build keeps it working: the table holds what the load says,
 * every query is timed in each of the three phases, and with a goal of 0 ms every query's plans are printed, those of
 * the library's statements as it ran them (a FAILED page through the partial index of FAILED records).
 */
class ConsoleQueryBenchmarkTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyQueryOfThePageIsTimedInEachPhase() throws Exception {
        BenchmarkSmokeTest.Database db = BenchmarkSmokeTest.database();
        Path out = Path.of("target", "benchmark-smoke", "console-query-benchmark.json");

        int exitCode = ConsoleQueryBenchmark.run(ConsoleQueryBenchmark.Options.parse(new String[] {
            "--console-queries", "--url=" + db.url(), "--user=" + db.user(), "--password=" + db.password(),
            "--records=3000", "--new-records=100", "--repeats=2", "--goal-millis=0", "--out=" + out}));

        assertThat(exitCode).isZero();
        JsonNode json = JsonMapper.builder().build().readTree(out.toFile());
        JsonNode records = json.path("records");
        assertThat(records.path("NEW").asLong()).isEqualTo(100);
        assertThat(records.path("FAILED").asLong()).isEqualTo(290);
        assertThat(records.path("COMPLETED").asLong()).isEqualTo(2610);
        for (String phase : List.of("notAnalyzed", "analyzed", "vacuumed")) {
            JsonNode queries = json.path("phases").path(phase).path("queries");
            assertThat(queries.size()).as(phase).isEqualTo(26);
            queries.properties().forEach(query -> assertThat(query.getValue().path("maxMillis").asDouble())
                    .as(phase + ": " + query.getKey()).isPositive());
            JsonNode pagePlans = queries.path("page 1, newest first").path("plans");
            assertThat(pagePlans.toString()).as(phase)
                    .contains("set_config('enable_sort', 'off', true)", "ORDER BY r.sequence_no DESC LIMIT 100",
                            "Buffers: shared");
            assertThat(queries.path("count, unfiltered").path("plans").toString()).as(phase)
                    .contains("idx_outbox_record_failed_seq");
            assertThat(queries.path("held back by page 1's records").path("plans").toString()).as(phase)
                    .contains("new_behind");
            assertThat(queries.path("a partition's open records (click)").path("plans").toString()).as(phase)
                    .contains("UNION ALL");
        }
    }
}
