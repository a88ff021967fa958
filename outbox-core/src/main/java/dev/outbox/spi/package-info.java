@NullMarked
package dev.outbox.spi;

import org.jspecify.annotations.NullMarked;
