/** Auto-configuration of Spring application events into the outbox. */
@NullMarked
package dev.outbox.boot.events;

import org.jspecify.annotations.NullMarked;
