package dev.outbox.jdbc.testing;

import dev.outbox.jdbc.dialect.OutboxTables;

/** Outbox tables other than the default ones, for the tests that the names reach every statement. */
public final class TestTables {

    private TestTables() {
    }

    /**
     * No prefix, so the tables are {@code record}, {@code instance} and {@code partition} (a reserved word on H2,
     * MariaDB and MySQL), in a schema of their own called {@code user} (a reserved word on PostgreSQL and H2; on
     * MariaDB a database with a unique name).
     */
    public static OutboxTables reservedWords(TestDatabase database) {
        return OutboxTables.builder().schema(database.createSchema("user")).tablePrefix("").build();
    }

    /**
     * The prefix {@code order_} ({@code order_record}, {@code order_instance}, {@code order_partition}) in a schema
     * called {@code user}, as {@link #reservedWords} creates it.
     */
    public static OutboxTables prefixed(TestDatabase database) {
        return OutboxTables.builder().schema(database.createSchema("user")).tablePrefix("order_").build();
    }
}
