package dev.outbox.example.jdbc;

import dev.outbox.jdbc.testing.ReadmeSnippets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's plain-JDBC snippet is this example's code, line for line, imports included. */
class JdbcReadmeTest {

    @Test
    void theReadmeShowsTheJdbcWriteAsTheExampleHasIt() {
        ReadmeSnippets.assertInDocs(Path.of("src/main/java/dev/outbox/example/jdbc/Orders.java"), "jdbc-write");
    }
}
