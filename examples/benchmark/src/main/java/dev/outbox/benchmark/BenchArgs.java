package dev.outbox.benchmark;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The {@code --name=value} arguments of the benchmarks that take their options that way. */
final class BenchArgs {

    private BenchArgs() {
    }

    /**
     * The values by name, {@code flag} itself left out; every {@code --<repeated>=value} goes to {@code repeatedValues}
     * instead, when a repeated name is given.
     */
    static Map<String, String> parse(String[] args, String flag, @Nullable String repeated,
            List<String> repeatedValues) {
        Map<String, String> values = new HashMap<>();
        for (String arg : args) {
            if (arg.equals(flag)) {
                continue;
            }
            if (repeated != null && arg.startsWith("--" + repeated + "=")) {
                repeatedValues.add(arg.substring(repeated.length() + 3));
                continue;
            }
            int equals = arg.indexOf('=');
            if (!arg.startsWith("--") || equals < 0) {
                throw new IllegalArgumentException("expected --name=value but got '" + arg + "'");
            }
            values.put(arg.substring(2, equals), arg.substring(equals + 1));
        }
        return values;
    }

    static int positive(Map<String, String> values, String name, int defaultValue) {
        String text = values.getOrDefault(name, Integer.toString(defaultValue));
        int value;
        try {
            value = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number, was '" + text + "'");
        }
        if (value <= 0) {
            throw new IllegalArgumentException("--" + name + " must be positive, was " + value);
        }
        return value;
    }

    /** Fails naming the options left in {@code values} once the known ones were taken out. */
    static void requireNoneLeft(Map<String, String> values, List<String> known) {
        values.keySet().removeAll(known);
        if (!values.isEmpty()) {
            throw new IllegalArgumentException("unknown options " + values.keySet());
        }
    }
}
