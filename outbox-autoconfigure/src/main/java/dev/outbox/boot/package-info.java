@NullMarked
package dev.outbox.boot;

import org.jspecify.annotations.NullMarked;
