package dev.outbox.example.kotlin

import org.slf4j.LoggerFactory
import org.springframework.boot.ApplicationArguments
import org.springframework.boot.ApplicationRunner
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty
import org.springframework.stereotype.Component
import java.time.Duration

/**
 * What `spring-boot:run` shows: two orders placed and shipped, one without a carrier, and what the handlers did with
 * them, then the application ends. Off with `demo.enabled=false` (as in the tests).
 */
@Component
@ConditionalOnBooleanProperty(name = ["demo.enabled"], matchIfMissing = true)
class Demo(private val orders: OrderService, private val audit: AuditLog) : ApplicationRunner {

    private val log = LoggerFactory.getLogger(javaClass)

    override fun run(args: ApplicationArguments) {
        orders.place("demo-1", "ada", 4_200)
        orders.ship("demo-1", "rail")
        orders.place("demo-2", "grace", 1_000)
        orders.ship("demo-2", null)

        // Six entries: placed, booked and mailed for demo-1; placed, mailed and the booking given up for demo-2.
        val deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos()
        while (audit.entries().size < 6 && System.nanoTime() < deadline) {
            Thread.sleep(100)
        }
        audit.entries().forEach { log.info("handled: {}", it) }
    }
}
