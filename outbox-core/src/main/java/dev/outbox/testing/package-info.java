@NullMarked
package dev.outbox.testing;

import org.jspecify.annotations.NullMarked;
