@NullMarked
package dev.outbox.jpa.dialect;

import org.jspecify.annotations.NullMarked;
