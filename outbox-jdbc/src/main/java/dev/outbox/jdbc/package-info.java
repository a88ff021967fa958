@NullMarked
package dev.outbox.jdbc;

import org.jspecify.annotations.NullMarked;
