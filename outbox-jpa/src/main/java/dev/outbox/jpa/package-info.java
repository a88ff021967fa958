/**
 * The outbox's write path for JPA applications: records join the entity manager's transaction through the
 * persistence unit's DataSource. Everything else (the stores, the SQL, the schema) is outbox-jdbc's.
 */
@NullMarked
package dev.outbox.jpa;

import org.jspecify.annotations.NullMarked;
