package dev.outbox.metrics;

import dev.outbox.spi.RecordContext;
import io.micrometer.tracing.Baggage;
import io.micrometer.tracing.BaggageInScope;
import io.micrometer.tracing.BaggageManager;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Carries named Micrometer Tracing baggage (a tenant, say) from a record's writer to its handler: each entry current
 * when the record is written is stored as a header of the same name, and made current again around the handler call,
 * inside its observation, then closed. Immutable.
 */
public final class BaggageRecordContext implements RecordContext {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private final BaggageManager baggage;
    private final List<String> names;

    private BaggageRecordContext(BaggageManager baggage, List<String> names) {
        this.baggage = baggage;
        this.names = names;
    }

    /**
     * @param names the baggage names to carry; each is a header name as well (1 to 64 of {@code A-Z a-z 0-9 . _ -})
     * @throws IllegalArgumentException naming a name that cannot be a header name
     */
    public static BaggageRecordContext of(BaggageManager baggage, List<String> names) {
        for (String name : names) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("baggage name '" + name + "' cannot be a record header name: 1 to "
                        + "64 characters of A-Z a-z 0-9 . _ - starting with a letter or digit");
            }
        }
        return new BaggageRecordContext(Objects.requireNonNull(baggage, "baggage"), List.copyOf(names));
    }

    @Override
    public Map<String, String> capture() {
        Map<String, String> captured = new LinkedHashMap<>();
        for (String name : names) {
            Baggage current = baggage.getBaggage(name);
            String value = current == null ? null : current.get();
            if (value != null) {
                captured.put(name, value);
            }
        }
        return captured;
    }

    @Override
    public Scope restore(Map<String, String> headers) {
        Deque<BaggageInScope> scopes = new ArrayDeque<>();
        for (String name : names) {
            String value = headers.get(name);
            if (value != null) {
                scopes.push(baggage.createBaggageInScope(name, value));
            }
        }
        if (scopes.isEmpty()) {
            return Scope.NONE;
        }
        return () -> {
            while (!scopes.isEmpty()) {
                scopes.pop().close();
            }
        };
    }

    @Override
    public String toString() {
        return "BaggageRecordContext" + names;
    }
}
