/**
 * Cluster coordination: each instance's heartbeat lease in the instance table, the rebalance rounds that share the
 * partitions among the live instances, and the ledger of what this instance holds. {@link
 * dev.outbox.cluster.ClusterCoordinator} puts them together behind {@link dev.outbox.partition.PartitionOwnership}.
 */
@NullMarked
package dev.outbox.cluster;

import org.jspecify.annotations.NullMarked;
