package dev.outbox.boot;

import dev.outbox.Outbox;
import dev.outbox.node.OutboxNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.springframework.context.SmartLifecycle;

/**
 * The outboxes of {@code outbox.outboxes.<name>}, each on a DataSource of its own; the outbox of {@code outbox.*} is
 * the {@link Outbox} bean, not one of these. Their nodes start with the application context and hand their
 * partitions over before it closes, as the default outbox's node does.
 *
 * <pre>{@code
 * outboxes.outbox("billing").schedule(new InvoiceIssued(invoice.id()), invoice.id());
 * }</pre>
 */
public final class NamedOutboxes implements SmartLifecycle, AutoCloseable {

    private final Map<String, NamedOutbox> byName;
    private volatile boolean running;

    NamedOutboxes(List<NamedOutbox> outboxes) {
        Map<String, NamedOutbox> named = new LinkedHashMap<>();
        outboxes.forEach(outbox -> named.put(outbox.name(), outbox));
        this.byName = Collections.unmodifiableMap(named);
    }

    /** The names, in the order of the configuration. */
    public Set<String> names() {
        return byName.keySet();
    }

    /**
     * The outbox of that name.
     *
     * @throws IllegalArgumentException naming the outboxes there are, when none has that name
     */
    public NamedOutbox get(String name) {
        NamedOutbox outbox = byName.get(name);
        if (outbox == null) {
            throw new IllegalArgumentException("no outbox is named '" + name + "' under outbox.outboxes; the names are "
                    + byName.keySet());
        }
        return outbox;
    }

    /** The writer of the outbox of that name; see {@link #get(String)}. */
    public Outbox outbox(String name) {
        return get(name).outbox();
    }

    /** The outboxes, in the order of the configuration. */
    public List<NamedOutbox> all() {
        return List.copyOf(byName.values());
    }

    @Override
    public synchronized void start() {
        nodes().forEach(OutboxNode::start);
        running = true;
    }

    /** The hand-overs run together: each waits for its records in flight, up to the graceful-shutdown timeout. */
    @Override
    public synchronized void stop() {
        running = false;
        CompletableFuture.allOf(nodes().stream().map(node -> CompletableFuture.runAsync(node::stop,
                runnable -> new Thread(runnable, "outbox-stop").start()))
                .toArray(CompletableFuture[]::new)).join();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return OutboxNodeLifecycle.PHASE;
    }

    @Override
    public void close() {
        running = false;
        RuntimeException failure = null;
        for (NamedOutbox outbox : byName.values()) {
            try {
                outbox.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private List<OutboxNode> nodes() {
        List<OutboxNode> nodes = new ArrayList<>();
        byName.values().forEach(outbox -> {
            OutboxNode node = outbox.node();
            if (node != null) {
                nodes.add(node);
            }
        });
        return nodes;
    }
}
