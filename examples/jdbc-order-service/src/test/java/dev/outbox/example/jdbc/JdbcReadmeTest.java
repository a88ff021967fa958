package dev.outbox.example.jdbc;

import dev.outbox.jdbc.testing.ReadmeSnippets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's JDBC snippet is this example's code, line for line. */
class JdbcReadmeTest {

    @Test
    void theReadmeShowsTheJdbcWriteAsTheExampleHasIt() {
        ReadmeSnippets.assertInReadme(Path.of("..", "..", "README.md"),
                Path.of("src/main/java/dev/outbox/example/jdbc/Orders.java"), "jdbc-write");
    }
}
