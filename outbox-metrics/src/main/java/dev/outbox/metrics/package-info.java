@NullMarked
package dev.outbox.metrics;

import org.jspecify.annotations.NullMarked;
