package dev.outbox.example.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example run as {@code spring-boot:run} runs it, demo included, then stopped: the outbox and Liquibase log a few
 * lines up to "Started", the outbox schema's run among them as one line, and the run logs no WARN or ERROR line from
 * start to stop.
 */
@ExtendWith(OutputCaptureExtension.class)
class RunLogTest {

    /** Outbox and Liquibase INFO lines before "Started": the outbox's own are about six. */
    private static final int MOST_OUTBOX_AND_LIQUIBASE_LINES = 15;
    /** A line of Spring Boot's console format: its level and its (maybe abbreviated) logger. */
    private static final Pattern LOG_LINE = Pattern.compile("^\\S+\\s+(INFO|WARN|ERROR)\\s.*?\\]\\s+(\\S+)\\s+:\\s");
    /** As Spring Boot abbreviates loggers to fit: dev.outbox.x, d.outbox.x, d.o.x; liquibase.x, l.x. */
    private static final Pattern OUTBOX_OR_LIQUIBASE_LOGGER =
            Pattern.compile("^(dev\\.outbox|d\\.(outbox|o)|liquibase|l)\\.");

    @Test
    void startupIsShortAndTheRunLogsNoWarning(CapturedOutput output) {
        String[] args = {"--spring.datasource.url=jdbc:h2:mem:jdbc-orders-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1"};
        try (ConfigurableApplicationContext app = SpringApplication.run(JdbcOrderServiceApplication.class, args)) {
            assertThat(app.isRunning()).isTrue();
        }
        List<String> lines = output.getOut().lines().toList();
        int started = indexOf(lines, " Started ");
        List<String> outboxAndLiquibase = lines.subList(0, started).stream().filter(RunLogTest::isOutboxOrLiquibase)
                .toList();
        assertThat(outboxAndLiquibase).as("outbox and Liquibase lines before Started")
                .hasSizeLessThanOrEqualTo(MOST_OUTBOX_AND_LIQUIBASE_LINES);
        assertThat(outboxAndLiquibase).as("the outbox schema's run, in one line").filteredOn(line -> line.contains(
                "Outbox schema of outbox_{record,instance,partition} on H2: applied ")).hasSize(1);
        assertThat(indexOf(lines, "Orders confirmed by their outbox handler")).isGreaterThan(started);
        assertThat(lines).as("from start to stop").noneMatch(line -> {
            Matcher matcher = LOG_LINE.matcher(line);
            return matcher.find() && !matcher.group(1).equals("INFO");
        });
    }

    private static int indexOf(List<String> lines, String text) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i;
            }
        }
        throw new AssertionError("no line with '" + text + "' in " + lines);
    }

    private static boolean isOutboxOrLiquibase(String line) {
        Matcher matcher = LOG_LINE.matcher(line);
        if (!matcher.find()) {
            return false;
        }
        return OUTBOX_OR_LIQUIBASE_LOGGER.matcher(matcher.group(2)).find();
    }
}
