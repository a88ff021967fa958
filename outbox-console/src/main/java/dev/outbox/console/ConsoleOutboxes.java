package dev.outbox.console;

import dev.outbox.admin.OutboxAdmin;
import dev.outbox.boot.actuate.OutboxEndpoint;
import dev.outbox.monitoring.OutboxMonitor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The outboxes the console shows: the default one (of {@code outbox.*}) and each of {@code outbox.outboxes}, each
 * with the actuator endpoint whose reports and operations the console reuses.
 */
public final class ConsoleOutboxes {

    private final Target defaultOutbox;
    private final Map<String, Target> named;

    ConsoleOutboxes(Target defaultOutbox, List<Target> named) {
        this.defaultOutbox = defaultOutbox;
        Map<String, Target> byName = new LinkedHashMap<>();
        named.forEach(target -> byName.put(target.name(), target));
        this.named = byName;
    }

    /** The default outbox when {@code name} is null or empty, else the named one, if there is one so named. */
    Optional<Target> find(@Nullable String name) {
        return name == null || name.isEmpty() ? Optional.of(defaultOutbox) : Optional.ofNullable(named.get(name));
    }

    /** The default outbox, then the named ones. */
    List<Target> all() {
        List<Target> all = new ArrayList<>();
        all.add(defaultOutbox);
        all.addAll(named.values());
        return all;
    }

    List<String> names() {
        return new ArrayList<>(named.keySet());
    }

    /**
     * One outbox.
     *
     * @param name null for the default outbox
     * @param endpoint its actuator endpoint: the reports and the operations (through {@link OutboxAdmin})
     * @param history its last hour, from the monitor's snapshots
     */
    record Target(@Nullable String name, OutboxMonitor monitor, OutboxAdmin admin, OutboxEndpoint endpoint,
            ConsoleHistory history) {
    }
}
