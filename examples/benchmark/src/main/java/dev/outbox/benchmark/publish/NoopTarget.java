package dev.outbox.benchmark.publish;

import java.util.List;

/** The reference: a record processor that does nothing, on the classic one-record handler path. */
public final class NoopTarget implements BenchTarget {

    @Override
    public String name() {
        return "noop";
    }

    @Override
    public List<String> properties() {
        return List.of();
    }

    @Override
    public boolean publishes() {
        return false;
    }

    @Override
    public List<Delivered> readBack(long expected) {
        return List.of();
    }

    @Override
    public void close() {
    }
}
