/** The destinations of the publisher benchmark: a broker each, and the no-op handler it is compared with. */
@NullMarked
package dev.outbox.benchmark.publish;

import org.jspecify.annotations.NullMarked;
