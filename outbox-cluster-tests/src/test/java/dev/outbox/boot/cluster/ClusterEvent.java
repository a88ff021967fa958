package dev.outbox.boot.cluster;

/** The payload of the records a node writes through its {@code Outbox}: the round it was written in. */
record ClusterEvent(int round) {
}
