package dev.outbox.jdbc.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Keeps a README snippet and the test code that runs it the same: the code between {@code // README: <name>} and
 * {@code // README: end} in a test source must be a {@code java} code block of the project's README, line for line
 * (indentation aside).
 */
public final class ReadmeSnippets {

    private static final Path README = Path.of("..", "README.md");

    private ReadmeSnippets() {
    }

    /** Fails unless the README holds the snippet {@code name} of {@code testSource} as a java code block. */
    public static void assertInReadme(Path testSource, String name) {
        assertInReadme(README, testSource, name);
    }

    /** As {@link #assertInReadme(Path, String)}, for a module whose README is at {@code readme}. */
    public static void assertInReadme(Path readme, Path testSource, String name) {
        String snippet = dedent(between(read(testSource), "// README: " + name + "\n", "// README: end"));
        assertThat(snippet).as("snippet '%s' in %s", name, testSource).isNotBlank();
        assertThat(codeBlocks(read(readme))).as("a java block of %s", readme).contains(snippet);
    }

    /**
     * The settings of the README's {@code properties} code block that sets {@code key}, without its comments, for a
     * test to run them as written: {@code key=value} lines in README order.
     */
    public static java.util.List<String> propertiesBlockSetting(String key) {
        java.util.List<String> blocks = Arrays.stream(read(README).split("```properties\n")).skip(1)
                .map(block -> block.substring(0, block.indexOf("```")))
                .filter(block -> block.lines().anyMatch(line -> line.startsWith(key + "="))).toList();
        assertThat(blocks).as("properties blocks of README.md setting %s", key).hasSize(1);
        return blocks.get(0).lines().map(String::strip)
                .filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
    }

    private static String between(String text, String start, String end) {
        int from = text.indexOf(start);
        assertThat(from).as("marker %s", start.strip()).isNotNegative();
        int to = text.indexOf(end, from);
        assertThat(to).as("marker %s after %s", end, start.strip()).isGreaterThan(from);
        return text.substring(from + start.length(), text.lastIndexOf('\n', to));
    }

    private static String[] codeBlocks(String readme) {
        return Arrays.stream(readme.split("```java\n")).skip(1)
                .map(block -> dedent(block.substring(0, block.indexOf("```")))).toArray(String[]::new);
    }

    private static String dedent(String code) {
        int indent = code.lines().filter(line -> !line.isBlank())
                .mapToInt(line -> line.length() - line.stripLeading().length()).min().orElse(0);
        return code.lines().map(line -> line.isBlank() ? "" : line.substring(indent).stripTrailing())
                .collect(Collectors.joining("\n")).strip();
    }

    private static String read(Path path) {
        try {
            return Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
