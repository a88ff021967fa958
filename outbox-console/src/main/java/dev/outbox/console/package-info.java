/**
 * The operator console: a page of the application's Spring MVC, and its JSON, over the outbox's monitor and admin API
 * (the same reports and operations as the {@code outbox} actuator endpoint).
 */
@NullMarked
package dev.outbox.console;

import org.jspecify.annotations.NullMarked;
