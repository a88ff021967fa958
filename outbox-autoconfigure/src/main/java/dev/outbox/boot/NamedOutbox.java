package dev.outbox.boot;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.jdbc.JdbcOutboxStores;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.node.OutboxNode;
import dev.outbox.processing.OutboxProcessor;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One outbox of {@code outbox.outboxes.<name>}: its writer, whose records join the transactions of its
 * {@code DataSource}, and the operations over its tables. Its node (when the application processes records) runs with
 * the application context.
 */
public final class NamedOutbox {

    private final String name;
    private final Outbox outbox;
    private final OutboxRecordRepository repository;
    private final OutboxMonitor monitor;
    private final OutboxAdmin admin;
    private final JdbcOutboxStores stores;
    private final @Nullable OutboxNode node;
    private final @Nullable OutboxProcessor onDemand;

    /**
     * @param node processes in the background, when {@code outbox.processing.enabled}
     * @param onDemand processes when called, when not
     */
    NamedOutbox(String name, Outbox outbox, OutboxRecordRepository repository, OutboxMonitor monitor,
            OutboxAdmin admin, JdbcOutboxStores stores, @Nullable OutboxNode node,
            @Nullable OutboxProcessor onDemand) {
        this.name = Objects.requireNonNull(name, "name");
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.repository = Objects.requireNonNull(repository, "repository");
        this.monitor = Objects.requireNonNull(monitor, "monitor");
        this.admin = Objects.requireNonNull(admin, "admin");
        this.stores = Objects.requireNonNull(stores, "stores");
        this.node = node;
        this.onDemand = onDemand;
    }

    /** The key under {@code outbox.outboxes}. */
    public String name() {
        return name;
    }

    /** Writes events into this outbox, in the current transaction of its DataSource. */
    public Outbox outbox() {
        return outbox;
    }

    /** Saves records into this outbox, in the current transaction of its DataSource, one per subscribed handler. */
    public OutboxRecordRepository repository() {
        return repository;
    }

    /** Backlog and cluster figures of this outbox. */
    public OutboxMonitor monitor() {
        return monitor;
    }

    /** Operations on this outbox's FAILED records. */
    public OutboxAdmin admin() {
        return admin;
    }

    /** Where this outbox's tables are. */
    public OutboxTables tables() {
        return stores.tables();
    }

    /**
     * This instance's processor of the outbox: its node's, or with {@code outbox.processing.enabled=false} one that
     * processes when called ({@code processDueRecords()}); empty where the application has nothing to process records
     * with.
     */
    public Optional<OutboxProcessor> processor() {
        return node != null ? Optional.of(node.processor()) : Optional.ofNullable(onDemand);
    }

    /** This instance's membership of the outbox's cluster; empty where it processes nothing. */
    public Optional<ClusterCoordinator> coordinator() {
        return Optional.ofNullable(node).flatMap(OutboxNode::coordinator);
    }

    @Nullable OutboxNode node() {
        return node;
    }

    void close() {
        try {
            if (node != null) {
                node.close();
            }
            if (onDemand != null) {
                onDemand.close();
            }
        } finally {
            stores.close();
        }
    }

    @Override
    public String toString() {
        return "NamedOutbox[" + name + " on " + stores.tables() + "]";
    }
}
