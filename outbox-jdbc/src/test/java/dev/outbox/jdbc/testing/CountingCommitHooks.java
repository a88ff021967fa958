package dev.outbox.jdbc.testing;

import dev.outbox.jdbc.CommitHooks;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/** Commit hooks that remember every commit of a transaction with records and the partitions it wrote. */
public final class CountingCommitHooks implements CommitHooks {

    private final List<Set<Integer>> committedPartitions = new CopyOnWriteArrayList<>();

    @Override
    public void afterCommit(Set<Integer> partitions) {
        committedPartitions.add(Set.copyOf(partitions));
    }

    public int commits() {
        return committedPartitions.size();
    }

    public List<Set<Integer>> committedPartitions() {
        return List.copyOf(committedPartitions);
    }
}
