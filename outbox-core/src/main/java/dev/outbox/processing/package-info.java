@NullMarked
package dev.outbox.processing;

import org.jspecify.annotations.NullMarked;
