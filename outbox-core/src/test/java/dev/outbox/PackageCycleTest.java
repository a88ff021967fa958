package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The main packages of outbox-core depend on each other in one direction only: a cycle means neither package can be
 * understood, tested or moved without the other. Dependencies are read from the sources (imports, static imports and
 * fully qualified names in code; comments and string literals do not count).
 */
class PackageCycleTest {

    private static final Path MAIN_SOURCES = Path.of("src/main/java");
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    // dev.outbox[.sub...] followed by a type name or a wildcard import
    private static final Pattern REFERENCE =
            Pattern.compile("\\bdev\\.outbox((?:\\.[a-z_][a-z0-9_]*)*)\\s*\\.\\s*(?:[A-Z]\\w*|\\*)");

    @Test
    void mainPackagesFormNoCycle() {
        Map<String, Map<String, Set<String>>> graph = packageGraph();
        assertThat(graph).as("packages read from %s", MAIN_SOURCES.toAbsolutePath())
                .containsKeys("dev.outbox", "dev.outbox.processing", "dev.outbox.handler", "dev.outbox.publish");
        assertThat(graph.get("dev.outbox.processing")).as("dependencies of dev.outbox.processing")
                .containsKey("dev.outbox.spi");

        List<String> cycles = new ArrayList<>();
        for (Set<String> component : stronglyConnected(graph)) {
            if (component.size() > 1) {
                cycles.add(describe(component, cycleWithin(component, graph), graph));
            }
        }
        assertThat(cycles).as("package cycles among outbox-core's main packages").isEmpty();
    }

    /** Package to the packages it uses, each with the files and types that use them. */
    private static Map<String, Map<String, Set<String>>> packageGraph() {
        Map<String, Map<String, Set<String>>> graph = new TreeMap<>();
        Map<Path, String> sources = new TreeMap<>();
        try (Stream<Path> files = Files.walk(MAIN_SOURCES)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                sources.put(file, Files.readString(file));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String source : sources.values()) {
            Matcher declared = PACKAGE.matcher(source);
            if (declared.find()) {
                graph.putIfAbsent(declared.group(1), new TreeMap<>());
            }
        }
        for (Map.Entry<Path, String> source : sources.entrySet()) {
            Matcher declared = PACKAGE.matcher(source.getValue());
            if (!declared.find()) {
                continue;
            }
            String from = declared.group(1);
            String code = codeOnly(source.getValue().substring(declared.end()));
            Matcher reference = REFERENCE.matcher(code);
            while (reference.find()) {
                String to = "dev.outbox" + reference.group(1);
                if (!to.equals(from) && graph.containsKey(to)) {
                    graph.get(from).computeIfAbsent(to, p -> new TreeSet<>())
                            .add(source.getKey().getFileName() + " uses " + reference.group().replaceAll("\\s", ""));
                }
            }
        }
        return graph;
    }

    /** {@code source} without comments, string, text block and character literals. */
    static String codeOnly(String source) {
        StringBuilder code = new StringBuilder(source.length());
        int i = 0;
        while (i < source.length()) {
            if (source.startsWith("//", i)) {
                i = end(source.indexOf('\n', i), source);
            } else if (source.startsWith("/*", i)) {
                i = end(source.indexOf("*/", i + 2), source) + 2;
            } else if (source.startsWith("\"\"\"", i)) {
                i = end(source.indexOf("\"\"\"", i + 3), source) + 3;
                code.append("\"\"");
            } else if (source.charAt(i) == '"' || source.charAt(i) == '\'') {
                char quote = source.charAt(i++);
                while (i < source.length() && source.charAt(i) != quote) {
                    i += source.charAt(i) == '\\' ? 2 : 1;
                }
                i++;
                code.append(quote).append(quote);
            } else {
                code.append(source.charAt(i++));
            }
        }
        return code.toString();
    }

    private static int end(int found, String source) {
        return found < 0 ? source.length() : found;
    }

    /** Tarjan's strongly connected components. */
    private static List<Set<String>> stronglyConnected(Map<String, Map<String, Set<String>>> graph) {
        List<Set<String>> components = new ArrayList<>();
        Map<String, Integer> index = new TreeMap<>();
        Map<String, Integer> lowLink = new TreeMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new HashSet<>();
        for (String start : graph.keySet()) {
            if (!index.containsKey(start)) {
                connect(start, graph, index, lowLink, stack, onStack, components);
            }
        }
        return components;
    }

    private static void connect(String node, Map<String, Map<String, Set<String>>> graph, Map<String, Integer> index,
            Map<String, Integer> lowLink, Deque<String> stack, Set<String> onStack, List<Set<String>> components) {
        index.put(node, index.size());
        lowLink.put(node, index.get(node));
        stack.push(node);
        onStack.add(node);
        for (String next : graph.get(node).keySet()) {
            if (!index.containsKey(next)) {
                connect(next, graph, index, lowLink, stack, onStack, components);
                lowLink.put(node, Math.min(lowLink.get(node), lowLink.get(next)));
            } else if (onStack.contains(next)) {
                lowLink.put(node, Math.min(lowLink.get(node), index.get(next)));
            }
        }
        if (lowLink.get(node).equals(index.get(node))) {
            Set<String> component = new TreeSet<>();
            String member;
            do {
                member = stack.pop();
                onStack.remove(member);
                component.add(member);
            } while (!member.equals(node));
            components.add(component);
        }
    }

    /** A shortest cycle through the first package of {@code component}, staying inside it. */
    private static List<String> cycleWithin(Set<String> component, Map<String, Map<String, Set<String>>> graph) {
        String start = component.iterator().next();
        Map<String, String> cameFrom = new TreeMap<>();
        Deque<String> queue = new ArrayDeque<>(List.of(start));
        while (!queue.isEmpty()) {
            String node = queue.poll();
            for (String next : graph.get(node).keySet()) {
                if (next.equals(start)) {
                    List<String> cycle = new ArrayList<>(List.of(start));
                    for (String back = node; !back.equals(start); back = cameFrom.get(back)) {
                        cycle.add(1, back);
                    }
                    cycle.add(start);
                    return cycle;
                }
                if (component.contains(next) && !cameFrom.containsKey(next)) {
                    cameFrom.put(next, node);
                    queue.add(next);
                }
            }
        }
        throw new IllegalStateException("no cycle through " + start + " in " + component);
    }

    /** The cycle, then every dependency inside its component with the files behind it. */
    private static String describe(Set<String> component, List<String> cycle,
            Map<String, Map<String, Set<String>>> graph) {
        StringBuilder text = new StringBuilder(String.join(" -> ", cycle))
                .append(" (packages depending on each other: ").append(component).append(")");
        for (String from : component) {
            graph.get(from).forEach((to, uses) -> {
                if (component.contains(to)) {
                    text.append("\n  ").append(from).append(" -> ").append(to).append(": ").append(uses);
                }
            });
        }
        return text.toString();
    }
}
