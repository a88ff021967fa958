@NullMarked
package dev.outbox.jpa;

import org.jspecify.annotations.NullMarked;
