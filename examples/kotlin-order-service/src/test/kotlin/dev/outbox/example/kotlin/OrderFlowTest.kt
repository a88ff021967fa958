package dev.outbox.example.kotlin

import dev.outbox.OutboxRecordRepository
import dev.outbox.OutboxRecordStatus
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest
import java.time.Duration

@SpringBootTest(properties = ["demo.enabled=false"])
class OrderFlowTest @Autowired constructor(
    private val orders: OrderService,
    private val records: OutboxRecordRepository,
    private val audit: AuditLog,
) {

    private val deadline = Duration.ofSeconds(60)

    @Test
    fun `typed handlers written in Kotlin receive the events of their type, each once and in order`() {
        orders.place("k-1", "ada", 4_200)
        orders.ship("k-1", "rail")

        await().atMost(deadline).until { records.findByAggregateId("k-1").all { it.status == OutboxRecordStatus.COMPLETED } }

        assertThat(records.findByAggregateId("k-1").map { it.handlerId })
            .containsExactly("order-audit", "carrier-booking", "customer-mail")
        assertThat(audit.entries()).contains(
            "placed k-1 for ada [order-audit #1]",
            "booked rail for k-1 [carrier-booking #1]",
            "mailed k-1: shipped with rail [customer-mail #1]",
        )
    }

    @Test
    fun `a booking that fails for good goes to its fallback while the mail goes out at once`() {
        orders.place("k-2", "grace", 1_000)
        orders.ship("k-2", null)

        await().atMost(deadline).until { audit.entries().any { it.startsWith("booking given up for k-2") } }

        val entries = audit.entries()
        assertThat(entries).contains("mailed k-2: shipped with our counter [customer-mail #1]")
        assertThat(entries.single { it.startsWith("booking given up for k-2") })
            .isEqualTo("booking given up for k-2: order k-2 has no carrier to book [carrier-booking #3]")
        await().atMost(deadline).until { records.findByAggregateId("k-2").all { it.status == OutboxRecordStatus.COMPLETED } }
    }

    @Test
    fun `an event published with Spring's API reaches its handler through the outbox, with the business change`() {
        orders.place("k-4", "barbara", 2_500)
        orders.cancel("k-4", "changed my mind")

        await().atMost(deadline).until { audit.entries().any { it.startsWith("mailed k-4: cancelled") } }

        assertThat(audit.entries()).contains("mailed k-4: cancelled, changed my mind [cancellation-mail #1]")
        val cancellation = records.findByAggregateId("k-4").single { it.eventType == "OrderCancelled" }
        assertThat(cancellation.handlerId).isEqualTo("cancellation-mail")
        assertThat(cancellation.payload).isEqualTo("""{"orderId":"k-4","reason":"changed my mind"}""")
    }

    @Test
    fun `invalid input is refused before anything is written`() {
        assertThatThrownBy { orders.place("k-3", "linus", 0) }
            .isInstanceOf(IllegalArgumentException::class.java).hasMessage("amountCents must be > 0 but was 0")
        assertThat(records.findByAggregateId("k-3")).isEmpty()
    }
}
