@NullMarked
package dev.outbox.partition;

import org.jspecify.annotations.NullMarked;
