package dev.outbox.example.kotlin

import dev.outbox.OutboxRecord
import dev.outbox.handler.OutboxHandler
import dev.outbox.handler.RecordMetadata
import org.slf4j.LoggerFactory
import org.springframework.stereotype.Component
import java.util.concurrent.CopyOnWriteArrayList

/** What the handlers did, in order: the example's stand-in for a mail server and a ledger. */
@Component
class AuditLog {
    private val entries = CopyOnWriteArrayList<String>()

    fun add(entry: String, metadata: RecordMetadata) {
        entries.add("$entry [${metadata.handlerId} #${metadata.attempt}]")
    }

    fun entries(): List<String> = entries.toList()
}

/** Handlers written as Kotlin functions: two subscribe to OrderShipped, each with its own state and retries. */
@Component
class ShippingNotifications(private val audit: AuditLog) {

    private val log = LoggerFactory.getLogger(javaClass)

    @OutboxHandler(id = "customer-mail")
    fun mailCustomer(event: OrderShipped, metadata: RecordMetadata) {
        val carrier = event.carrier ?: "our counter"
        audit.add("mailed ${event.orderId}: shipped with $carrier", metadata)
    }

    @OutboxHandler(id = "carrier-booking", maxRetries = 2, fallback = "bookingFailed")
    fun bookCarrier(event: OrderShipped, metadata: RecordMetadata) {
        val carrier = checkNotNull(event.carrier) { "order ${event.orderId} has no carrier to book" }
        audit.add("booked $carrier for ${event.orderId}", metadata)
    }

    @OutboxHandler(id = "cancellation-mail")
    fun mailCancellation(event: OrderCancelled, metadata: RecordMetadata) {
        audit.add("mailed ${event.orderId}: cancelled, ${event.reason}", metadata)
    }

    /** Called once a booking has failed for good; returning normally lets the order's later events go on. */
    fun bookingFailed(record: OutboxRecord, failure: Throwable) {
        log.warn("Booking for {} given up: {}", record.aggregateId, failure.message)
        audit.add("booking given up for ${record.aggregateId}: ${failure.message}", RecordMetadata.of(record))
    }
}
