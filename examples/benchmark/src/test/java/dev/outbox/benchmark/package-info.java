@NullMarked
package dev.outbox.benchmark;

import org.jspecify.annotations.NullMarked;
