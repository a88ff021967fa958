package dev.outbox.boot.testing;

import dev.outbox.jdbc.testing.TestDatabase;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A database of its own for each test class, created before its first test and dropped after its last, of the kind a
 * subclass names: how a suite runs once per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DatabasePerTestClass {

    private TestDatabase database;

    protected abstract TestDatabase.Kind databaseKind();

    @BeforeAll
    final void createDatabase() {
        database = TestDatabase.create(databaseKind());
    }

    @AfterAll
    final void dropDatabase() {
        if (database != null) {
            database.close();
        }
    }

    protected final TestDatabase database() {
        return database;
    }

    /** Deletes every row of {@code tables}; a table the first application context has not created yet is skipped. */
    protected final void deleteRowsOf(String... tables) {
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        for (String table : tables) {
            try {
                jdbc.update("DELETE FROM " + table);
            } catch (RuntimeException tableNotCreatedYet) {
                // created with the first application context
            }
        }
    }

    /** The Spring properties that connect an application to this class's database. */
    protected final List<String> dataSourceProperties() {
        return List.of(
                "spring.datasource.url=" + database.jdbcUrl(),
                "spring.datasource.username=" + database.username(),
                "spring.datasource.password=" + database.password());
    }
}
