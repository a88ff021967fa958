package dev.outbox.context;

import dev.outbox.spi.RecordContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.MDC;

/**
 * Carries named SLF4J MDC entries (a tenant, a correlation id) from the writer's thread to the handler's: each key set
 * in the MDC when a record is written is stored as a header of the same name, and put in the MDC around the handler
 * call, so that the handler's log lines carry the writer's values. Afterwards the MDC is as it was. Immutable.
 */
public final class MdcRecordContext implements RecordContext {

    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private final List<String> keys;

    private MdcRecordContext(List<String> keys) {
        this.keys = keys;
    }

    /**
     * @param keys the MDC keys to carry; each is a header name as well (1 to 64 of {@code A-Z a-z 0-9 . _ -})
     * @throws IllegalArgumentException naming a key that cannot be a header name
     */
    public static MdcRecordContext of(List<String> keys) {
        for (String key : keys) {
            if (key == null || !KEY.matcher(key).matches()) {
                throw new IllegalArgumentException("MDC key '" + key + "' cannot be a record header name: 1 to 64 "
                        + "characters of A-Z a-z 0-9 . _ - starting with a letter or digit");
            }
        }
        return new MdcRecordContext(List.copyOf(keys));
    }

    @Override
    public Map<String, String> capture() {
        Map<String, String> captured = new LinkedHashMap<>();
        for (String key : keys) {
            String value = MDC.get(key);
            if (value != null) {
                captured.put(key, value);
            }
        }
        return captured;
    }

    @Override
    public Scope restore(Map<String, String> headers) {
        Map<String, String> previous = new LinkedHashMap<>();
        boolean set = false;
        for (String key : keys) {
            String value = headers.get(key);
            if (value != null) {
                previous.put(key, MDC.get(key));
                MDC.put(key, value);
                set = true;
            }
        }
        if (!set) {
            return Scope.NONE;
        }
        return () -> previous.forEach((key, value) -> {
            if (value == null) {
                MDC.remove(key);
            } else {
                MDC.put(key, value);
            }
        });
    }

    @Override
    public String toString() {
        return "MdcRecordContext" + keys;
    }
}
