/**
 * Test support shared through this module's test-jar: throw-away H2 and PostgreSQL databases.
 */
@NullMarked
package dev.outbox.jdbc.testing;

import org.jspecify.annotations.NullMarked;
