/** Test support: a JPA persistence unit with an entity of its own beside the outbox tables. */
@NullMarked
package dev.outbox.jpa.testing;

import org.jspecify.annotations.NullMarked;
