package dev.outbox.example.kotlin

import dev.outbox.handler.HandlerRegistration
import dev.outbox.retry.OutboxRetryPolicy
import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.runApplication
import org.springframework.context.annotation.Bean
import java.time.Duration

@SpringBootApplication
class KotlinOrderServiceApplication {

    /** A handler written as a lambda: every placed order is audited, with a retry policy of its own. */
    @Bean
    fun orderAudit(audit: AuditLog): HandlerRegistration<OrderPlaced> =
        HandlerRegistration.builder("order-audit", OrderPlaced::class.java)
            .retryPolicy(OutboxRetryPolicy.fixed(Duration.ofMillis(200)).withMaxRetries(3))
            .handler { event, metadata -> audit.add("placed ${event.orderId} for ${event.customer}", metadata) }
            .build()
}

fun main(args: Array<String>) {
    runApplication<KotlinOrderServiceApplication>(*args)
}
