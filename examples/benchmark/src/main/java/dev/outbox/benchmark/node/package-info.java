/**
 * The processing node of the benchmark: the starter with the library's defaults, a handler that records every call,
 * a JDBC statement counter, a start gate, and a report file the driver reads.
 */
@NullMarked
package dev.outbox.benchmark.node;

import org.jspecify.annotations.NullMarked;
