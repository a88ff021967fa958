/** Retention: the scheduled purge of finished records. */
@NullMarked
package dev.outbox.retention;

import org.jspecify.annotations.NullMarked;
