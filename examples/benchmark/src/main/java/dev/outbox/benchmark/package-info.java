/**
 * The outbox benchmark: a driver that creates its own PostgreSQL database, writes records through the library, starts
 * processing nodes as JVMs of their own ({@link dev.outbox.benchmark.node}), and measures backlog drain, latency and
 * idle cost against a plain-JDBC reference.
 */
@NullMarked
package dev.outbox.benchmark;

import org.jspecify.annotations.NullMarked;
