package dev.outbox.cluster;

import dev.outbox.spi.InstanceState;
import dev.outbox.spi.InstanceStore;
import java.time.Duration;
import java.util.List;

/**
 * An instance table that passes every call to {@link #delegate}: a test overrides the calls it watches. The interface's
 * default methods are left to call the others, so that a watched call is seen whichever way the caller reaches it.
 */
public abstract class ForwardingInstanceStore implements InstanceStore {

    protected final InstanceStore delegate;

    protected ForwardingInstanceStore(InstanceStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public void register(String instanceId, String hostname, int port) {
        delegate.register(instanceId, hostname, port);
    }

    @Override
    public boolean heartbeat(String instanceId) {
        return delegate.heartbeat(instanceId);
    }

    @Override
    public void markShuttingDown(String instanceId) {
        delegate.markShuttingDown(instanceId);
    }

    @Override
    public void remove(String instanceId) {
        delegate.remove(instanceId);
    }

    @Override
    public List<InstanceState> findLive(Duration staleTimeout) {
        return delegate.findLive(staleTimeout);
    }

    @Override
    public int removeStale(Duration staleTimeout) {
        return delegate.removeStale(staleTimeout);
    }
}
