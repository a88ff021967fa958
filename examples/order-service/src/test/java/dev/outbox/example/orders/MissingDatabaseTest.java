package dev.outbox.example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The {@code postgres} profile on a database not created yet: the service does not start, and says which database is
 * missing and how to create it, without a stack trace. Needs the local PostgreSQL (skipped without it).
 */
@ExtendWith(OutputCaptureExtension.class)
class MissingDatabaseTest {

    @Test
    void aMissingDatabaseIsReportedWithTheCommandThatCreatesIt(CapturedOutput output) {
        assumeTrue(postgresAnswers(), "PostgreSQL is not running on 127.0.0.1:5432");
        String database = "outbox_missing_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

        assertThatThrownBy(() -> SpringApplication.run(OrderServiceApplication.class,
                "--spring.profiles.active=postgres", "--server.port=0",
                "--spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/" + database)).isNotNull();

        assertThat(output.getOut()).contains("APPLICATION FAILED TO START",
                "The order service's database does not exist: FATAL: database \"" + database + "\" does not exist.",
                "createdb -h 127.0.0.1 -U postgres outbox_example");
        assertThat(output.getOut().lines()).as("no stack trace").noneMatch(line -> line.startsWith("\tat "));
    }

    private static boolean postgresAnswers() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", 5432), 3000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
