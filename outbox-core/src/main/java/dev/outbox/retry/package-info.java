@NullMarked
package dev.outbox.retry;

import org.jspecify.annotations.NullMarked;
