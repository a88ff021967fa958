/** Tests of the order service example, through its HTTP API and its beans. */
@NullMarked
package dev.outbox.example.orders;

import org.jspecify.annotations.NullMarked;
