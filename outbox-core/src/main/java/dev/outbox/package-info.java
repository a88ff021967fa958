@NullMarked
package dev.outbox;

import org.jspecify.annotations.NullMarked;
