package dev.outbox.example.kotlin

import dev.outbox.OutboxRecord
import dev.outbox.handler.RecordMetadata
import org.assertj.core.api.Assertions.assertThat
import org.jetbrains.kotlin.cli.common.ExitCode
import org.jetbrains.kotlin.cli.jvm.K2JVMCompiler
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.ByteArrayOutputStream
import java.io.File
import java.io.PrintStream
import java.nio.file.Path
import java.time.Clock

/**
 * The library's JSpecify annotations reach the Kotlin compiler: non-null getters are Kotlin non-null types (no `!!`),
 * nullable ones are `T?`. The first test compiles only because of that; the others run the compiler on snippets and
 * show it refuses a nullable used as non-null, and (with -Werror) a needless safe call on a non-null value.
 */
class NullnessTest {

    @Test
    fun `non-null getters need no double bang and nullable ones are nullable`() {
        val record: OutboxRecord = OutboxRecord.builder().aggregateId("order-1").eventType("OrderPlaced")
            .payload("{}").build(Clock.systemUTC())
        val id: String = record.id
        val aggregateId: String = record.aggregateId
        val partition: Int = record.partition
        val handlerId: String? = record.handlerId
        val lastError: String? = record.lastError
        val metadata = RecordMetadata.of(record)
        val attempt: Int = metadata.attempt
        val sequence: Long? = metadata.sequence

        assertThat(id).isNotBlank()
        assertThat(aggregateId).isEqualTo("order-1")
        assertThat(partition).isBetween(0, 255)
        assertThat(handlerId).isNull()
        assertThat(lastError?.length ?: 0).isZero()
        assertThat(attempt).isEqualTo(1)
        assertThat(sequence).isNull()
    }

    @Test
    fun `a nullable getter cannot be used as non-null`(@TempDir work: Path) {
        val result = compile(work, "val length: Int = record.lastError.length")

        assertThat(result.exitCode).isEqualTo(ExitCode.COMPILATION_ERROR)
        assertThat(result.messages).contains("nullable receiver of type 'String?'")
    }

    @Test
    fun `a safe call on a non-null getter is flagged`(@TempDir work: Path) {
        val result = compile(work, "val length: Int? = record.aggregateId?.length")

        assertThat(result.exitCode).isEqualTo(ExitCode.COMPILATION_ERROR)
        assertThat(result.messages).contains("unnecessary safe call on a non-null receiver of type 'String'")
    }

    @Test
    fun `the same snippet compiles when it respects nullness`(@TempDir work: Path) {
        val result = compile(work, "val length: Int = record.aggregateId.length + (record.lastError?.length ?: 0)")

        assertThat(result.exitCode).`as`(result.messages).isEqualTo(ExitCode.OK)
    }

    private class Compilation(val exitCode: ExitCode, val messages: String)

    /** Compiles one statement about an OutboxRecord with the flags of this module's build. */
    private fun compile(work: Path, statement: String): Compilation {
        val source = work.resolve("Snippet.kt").toFile()
        source.writeText(
            """
            import dev.outbox.OutboxRecord
            fun snippet(record: OutboxRecord) {
                $statement
                println(length)
            }
            """.trimIndent(),
        )
        val messages = ByteArrayOutputStream()
        val exitCode = K2JVMCompiler().exec(
            PrintStream(messages, true, Charsets.UTF_8),
            "-no-stdlib", "-no-reflect",
            "-classpath", System.getProperty("java.class.path"),
            "-d", work.resolve("classes").toString(),
            "-jvm-target", "17",
            "-Xjspecify-annotations=strict",
            "-Werror",
            source.path,
        )
        return Compilation(exitCode, messages.toString(Charsets.UTF_8))
    }
}
