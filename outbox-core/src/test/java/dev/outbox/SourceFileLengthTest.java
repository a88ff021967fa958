package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No main source file of outbox-core is longer than {@value #MAX_LINES} lines: past that a class does more than one
 * job, and reading it means reading all of them. Split it by responsibility rather than raising the limit.
 */
class SourceFileLengthTest {

    private static final int MAX_LINES = 400;
    private static final Path MAIN_SOURCES = Path.of("src/main/java");

    @Test
    void noMainSourceFileIsLongerThanTheLimit() throws IOException {
        Map<String, Integer> tooLong = new TreeMap<>();
        int files = 0;
        try (Stream<Path> walk = Files.walk(MAIN_SOURCES)) {
            for (Path file : (Iterable<Path>) walk.filter(f -> f.toString().endsWith(".java"))::iterator) {
                files++;
                List<String> lines = Files.readAllLines(file);
                if (lines.size() > MAX_LINES) {
                    tooLong.put(MAIN_SOURCES.relativize(file).toString(), lines.size());
                }
            }
        }
        assertThat(files).as("main source files under %s", MAIN_SOURCES.toAbsolutePath()).isGreaterThan(100);
        assertThat(tooLong).as("main source files over %d lines (file=lines)", MAX_LINES).isEmpty();
    }
}
