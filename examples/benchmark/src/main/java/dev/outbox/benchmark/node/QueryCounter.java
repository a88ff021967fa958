package dev.outbox.benchmark.node;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts JDBC statements by type: the statement's verb and its first table ({@code SELECT outbox_record},
 * {@code UPDATE outbox_instance}), or its opening words when it names no table ({@code SELECT CURRENT_TIMESTAMP}).
 */
final class QueryCounter {

    private static final Pattern TABLE = Pattern.compile("(?i)\\b(?:FROM|INTO|UPDATE)\\s+([A-Za-z_][A-Za-z0-9_.]*)");
    private static final int MAX_CACHED_LABELS = 1_000;
    private static final int MAX_LABEL_LENGTH = 48;

    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final Map<String, String> labels = new ConcurrentHashMap<>();

    void count(String label) {
        counts.computeIfAbsent(label, key -> new LongAdder()).increment();
    }

    void countSql(String sql) {
        count(labelOf(sql));
    }

    /** A consistent-enough copy: each count is read once. */
    Map<String, Long> snapshot() {
        Map<String, Long> copy = new TreeMap<>();
        counts.forEach((label, count) -> copy.put(label, count.sum()));
        return copy;
    }

    String labelOf(String sql) {
        String cached = labels.get(sql);
        if (cached != null) {
            return cached;
        }
        String label = classify(sql);
        if (labels.size() < MAX_CACHED_LABELS) {
            labels.put(sql, label);
        }
        return label;
    }

    static String classify(String sql) {
        String text = sql.strip().replaceAll("\\s+", " ");
        if (text.isEmpty()) {
            return "(empty)";
        }
        int space = text.indexOf(' ');
        String verb = (space < 0 ? text : text.substring(0, space)).toUpperCase(Locale.ROOT);
        Matcher table = TABLE.matcher(text);
        if (table.find()) {
            return verb + " " + table.group(1).toLowerCase(Locale.ROOT);
        }
        return text.length() <= MAX_LABEL_LENGTH ? text : text.substring(0, MAX_LABEL_LENGTH) + "…";
    }
}
