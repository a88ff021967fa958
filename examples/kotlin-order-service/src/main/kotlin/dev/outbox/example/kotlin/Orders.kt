package dev.outbox.example.kotlin

import dev.outbox.Outbox
import dev.outbox.OutboxRecord
import dev.outbox.OutboxRecordRepository
import jakarta.persistence.Column
import jakarta.persistence.Entity
import jakarta.persistence.Id
import jakarta.persistence.Table
import org.springframework.context.ApplicationEventPublisher
import org.springframework.data.jpa.repository.JpaRepository
import org.springframework.stereotype.Service
import org.springframework.transaction.annotation.Transactional
import tools.jackson.databind.json.JsonMapper
import java.time.Clock

@Entity
@Table(name = "shop_order")
class ShopOrder(
    @Id val id: String,
    val customer: String,
    @Column(name = "amount_cents") val amountCents: Long,
    var status: String = "PLACED",
    var carrier: String? = null,
)

interface ShopOrderRepository : JpaRepository<ShopOrder, String>

/** Each order change and its event commit together, or not at all. */
@Service
class OrderService(
    private val orders: ShopOrderRepository,
    private val outbox: Outbox,
    private val records: OutboxRecordRepository,
    private val json: JsonMapper,
    private val clock: Clock,
    private val events: ApplicationEventPublisher,
) {

    /** Through the façade: the event is serialized and named by its class. */
    @Transactional
    fun place(id: String, customer: String, amountCents: Long): ShopOrder {
        require(amountCents > 0) { "amountCents must be > 0 but was $amountCents" }
        val order = orders.save(ShopOrder(id, customer, amountCents))
        outbox.schedule(OrderPlaced(id, customer, amountCents), id)
        return order
    }

    /** Through the repository and the record builder, as with the seed's write API. */
    @Transactional
    fun ship(id: String, carrier: String?): OutboxRecord {
        val order = orders.findById(id).orElseThrow { NoSuchElementException("no order $id") }
        order.status = "SHIPPED"
        order.carrier = carrier
        val record = OutboxRecord.builder()
            .aggregateId(id)
            .eventType("OrderShipped")
            .payload(json.writeValueAsString(OrderShipped(id, carrier)))
            .build(clock)
        return records.save(record)
    }

    /** Through Spring's own event API: the outbox takes the event because its class is annotated. */
    @Transactional
    fun cancel(id: String, reason: String) {
        val order = orders.findById(id).orElseThrow { NoSuchElementException("no order $id") }
        order.status = "CANCELLED"
        events.publishEvent(OrderCancelled(id, reason))
    }
}
