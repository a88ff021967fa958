package dev.outbox.jdbc.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Keeps the documentation's snippets and the test code that runs them the same: the code between
 * {@code // README: <name>} and {@code // README: end} in a test source must be a {@code java} code block of the
 * project's README.md or of one of its {@code docs/*.md} pages, line for line (indentation aside). A block may start
 * with {@code import} lines and a blank line before the snippet, to show where its types come from; each of those
 * lines must then be an import of the test source too.
 */
public final class ReadmeSnippets {

    private ReadmeSnippets() {
    }

    /**
     * The project's root: the nearest directory, from the working directory up, that holds both README.md and
     * {@code docs/}. Tests run in their module's directory, one or two levels below it.
     */
    public static Path projectRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "no directory holding README.md and docs/ above " + Path.of("").toAbsolutePath());
    }

    /** README.md and every {@code docs/*.md}, by their path relative to the project root, with their text. */
    public static Map<String, String> documentation() {
        Path root = projectRoot();
        Map<String, String> pages = new TreeMap<>();
        pages.put("README.md", read(root.resolve("README.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(path -> path.getFileName().toString().endsWith(".md")).forEach(
                    path -> pages.put("docs/" + path.getFileName(), read(path)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pages;
    }

    /** The text of one page, {@code "README.md"} or {@code "docs/<name>.md"}. */
    public static String page(String relativePath) {
        return read(projectRoot().resolve(relativePath));
    }

    /** Fails unless README.md or a docs page holds the snippet {@code name} of {@code testSource} as a java block. */
    public static void assertInDocs(Path testSource, String name) {
        String source = read(testSource);
        String snippet = dedent(between(source, "// README: " + name + "\n", "// README: end"));
        assertThat(snippet).as("snippet '%s' in %s", name, testSource).isNotBlank();
        List<String> sourceLines = source.lines().map(String::strip).toList();
        List<String> blocks = new ArrayList<>();
        for (Map.Entry<String, String> page : documentation().entrySet()) {
            for (String block : codeBlocks(page.getValue())) {
                blocks.add(block);
                if (block.equals(snippet)) {
                    return;
                }
                String imports = importsBefore(block, snippet);
                if (imports != null) {
                    assertThat(sourceLines).as("the imports %s shows before snippet '%s' are %s's",
                            page.getKey(), name, testSource).containsAll(imports.lines().toList());
                    return;
                }
            }
        }
        assertThat(blocks).as("a java block of README.md or docs/*.md").contains(snippet);
    }

    /**
     * The settings of the one {@code properties} code block of README.md and the docs pages that sets {@code key},
     * without its comments, for a test to run them as written: {@code key=value} lines in their order.
     */
    public static List<String> propertiesBlockSetting(String key) {
        List<String> blocks = documentation().values().stream()
                .flatMap(page -> Arrays.stream(page.split("```properties\n")).skip(1))
                .map(block -> block.substring(0, block.indexOf("```")))
                .filter(block -> block.lines().anyMatch(line -> line.startsWith(key + "="))).toList();
        assertThat(blocks).as("properties blocks of README.md and docs/*.md setting %s", key).hasSize(1);
        return blocks.get(0).lines().map(String::strip)
                .filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
    }

    /** The import lines of {@code block} when it is those lines, a blank line and {@code snippet}; else null. */
    private static String importsBefore(String block, String snippet) {
        int blank = block.indexOf("\n\n");
        if (blank < 0 || !block.substring(blank + 2).equals(snippet)) {
            return null;
        }
        String imports = block.substring(0, blank);
        return imports.lines().allMatch(line -> line.startsWith("import ") && line.endsWith(";")) ? imports : null;
    }

    private static String between(String text, String start, String end) {
        int from = text.indexOf(start);
        assertThat(from).as("marker %s", start.strip()).isNotNegative();
        int to = text.indexOf(end, from);
        assertThat(to).as("marker %s after %s", end, start.strip()).isGreaterThan(from);
        return text.substring(from + start.length(), text.lastIndexOf('\n', to));
    }

    private static List<String> codeBlocks(String page) {
        return Arrays.stream(page.split("```java\n")).skip(1)
                .map(block -> dedent(block.substring(0, block.indexOf("```")))).toList();
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
