/**
 * One outbox node: the processor, the cluster coordinator, the purger and the wake-up sources of one outbox, wired
 * together and started and stopped in the hand-over order. {@link dev.outbox.node.OutboxNode} runs without Spring.
 */
@NullMarked
package dev.outbox.node;

import org.jspecify.annotations.NullMarked;
