/** Context carried from a record's writer to its handler: {@link dev.outbox.spi.RecordContext} and its uses. */
@NullMarked
package dev.outbox.context;

import org.jspecify.annotations.NullMarked;
