/** Operations on failed records: list, retry, skip, delete. */
@NullMarked
package dev.outbox.admin;

import org.jspecify.annotations.NullMarked;
