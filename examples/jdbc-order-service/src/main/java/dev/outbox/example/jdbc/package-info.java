/**
 * The JDBC example: an order service whose business writes go through {@code JdbcClient}, with the outbox records in
 * the same transactions, and no JPA anywhere.
 */
@NullMarked
package dev.outbox.example.jdbc;

import org.jspecify.annotations.NullMarked;
