package dev.outbox.example.kotlin

import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith
import org.springframework.boot.runApplication
import org.springframework.boot.test.system.CapturedOutput
import org.springframework.boot.test.system.OutputCaptureExtension
import java.util.UUID

/**
 * The example run as `spring-boot:run` runs it, demo included, then stopped: the outbox and Liquibase (which runs the
 * outbox changelog from the service's master) log a few lines up to "Started", and nothing after the demo's last line
 * (the stop) is a WARN or ERROR line.
 */
@ExtendWith(OutputCaptureExtension::class)
class RunLogTest {

    /** A line of Spring Boot's console format: its level and its (maybe abbreviated) logger. */
    private val logLine = Regex("""^\S+\s+(INFO|WARN|ERROR)\s.*?\]\s+(\S+)\s+:\s""")

    /** As Spring Boot abbreviates loggers to fit: dev.outbox.x, d.outbox.x, d.o.x; liquibase.x, l.x. */
    private val outboxOrLiquibaseLogger = Regex("""^(dev\.outbox|d\.(outbox|o)|liquibase|l)\.""")

    @Test
    fun `startup is short and the stop logs no warning`(output: CapturedOutput) {
        runApplication<KotlinOrderServiceApplication>(
            "--spring.datasource.url=jdbc:h2:mem:kotlin-orders-${UUID.randomUUID()};DB_CLOSE_DELAY=-1",
        ).use { app -> assertThat(app.isRunning).isTrue() }

        val lines = output.out.lines()
        val started = lines.indexOfFirst { it.contains(" Started ") }
        assertThat(started).`as`("the Started line").isNotNegative()
        val outboxAndLiquibase = lines.subList(0, started).filter { line ->
            val logger = logLine.find(line)?.groupValues?.get(2) ?: return@filter false
            outboxOrLiquibaseLogger.containsMatchIn(logger)
        }
        assertThat(outboxAndLiquibase).`as`("outbox and Liquibase lines before Started").hasSizeLessThanOrEqualTo(15)
        val lastHandled = lines.indexOfLast { it.contains("handled: ") }
        assertThat(lastHandled).`as`("the demo's last line").isGreaterThan(started)
        assertThat(lines.subList(lastHandled, lines.size)).`as`("the stop")
            .noneMatch { (logLine.find(it)?.groupValues?.get(1) ?: "INFO") != "INFO" }
    }
}
