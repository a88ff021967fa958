package dev.outbox.jpa;

import java.util.Locale;
import org.hibernate.boot.model.relational.Namespace;
import org.hibernate.boot.model.relational.Sequence;
import org.hibernate.mapping.Table;
import org.hibernate.tool.schema.spi.SchemaFilter;
import org.hibernate.tool.schema.spi.SchemaFilterProvider;

/**
 * Keeps Hibernate's schema tooling ({@code spring.jpa.hibernate.ddl-auto=create}, {@code create-drop},
 * {@code update}) away from the outbox table: the outbox changelog alone creates and changes it. Without this, an
 * application on an embedded database, where Spring Boot's default is {@code create-drop}, got an outbox table that
 * Hibernate had re-created without the database-generated {@code sequence_no}, and every write failed. Validation
 * still covers the table, so {@code validate} checks the mapping against the changelog's schema.
 *
 * <p>Set as {@code hibernate.hbm2ddl.schema_filter_provider}; the starter does so unless the application has a filter
 * of its own.
 */
public final class OutboxTableSchemaFilter implements SchemaFilterProvider, SchemaFilter {

    @Override
    public boolean includeNamespace(Namespace namespace) {
        return true;
    }

    @Override
    public boolean includeTable(Table table) {
        return !OutboxRecordEntity.TABLE.equals(table.getName().toLowerCase(Locale.ROOT));
    }

    @Override
    public boolean includeSequence(Sequence sequence) {
        return true;
    }

    @Override
    public SchemaFilter getCreateFilter() {
        return this;
    }

    @Override
    public SchemaFilter getDropFilter() {
        return this;
    }

    @Override
    public SchemaFilter getTruncatorFilter() {
        return this;
    }

    @Override
    public SchemaFilter getMigrateFilter() {
        return this;
    }

    @Override
    public SchemaFilter getValidateFilter() {
        return SchemaFilter.ALL;
    }
}
