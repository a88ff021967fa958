@NullMarked
package dev.outbox.jdbc.dialect;

import org.jspecify.annotations.NullMarked;
