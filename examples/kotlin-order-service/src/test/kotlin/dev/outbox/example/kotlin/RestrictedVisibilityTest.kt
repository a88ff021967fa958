package dev.outbox.example.kotlin

import dev.outbox.OutboxRecordRepository
import dev.outbox.OutboxRecordStatus
import dev.outbox.handler.OutboxHandler
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.boot.test.context.TestConfiguration
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Import
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList

/** Visible in this module only; a public class in bytecode. */
internal class InternalShipmentLog {
    val entries = CopyOnWriteArrayList<String>()

    @OutboxHandler(id = "internal-shipment-log")
    fun log(event: OrderShipped) {
        entries.add("internal: ${event.orderId}")
    }
}

/** Visible in this file only; a package-private class in bytecode, which the library's package cannot call as is. */
private class PrivateShipmentLog {
    val entries = CopyOnWriteArrayList<String>()

    @OutboxHandler(id = "private-shipment-log")
    fun log(event: OrderShipped) {
        entries.add("private: ${event.orderId}")
    }
}

@TestConfiguration(proxyBeanMethods = false)
private class RestrictedHandlers {
    @Bean
    fun internalShipmentLog() = InternalShipmentLog()

    @Bean
    fun privateShipmentLog() = PrivateShipmentLog()
}

// GH-12: handlers in classes the library's package could not access failed every record with IllegalAccessException.
@SpringBootTest(properties = ["demo.enabled=false", "spring.datasource.url=jdbc:h2:mem:kotlin-restricted;DB_CLOSE_DELAY=-1"])
@Import(RestrictedHandlers::class)
internal class RestrictedVisibilityTest @Autowired constructor(
    private val orders: OrderService,
    private val records: OutboxRecordRepository,
    private val internalLog: InternalShipmentLog,
    private val context: org.springframework.context.ApplicationContext,
) {

    @Test
    fun `handlers of internal and file-private Kotlin classes are called like any other`() {
        orders.place("k-9", "hedy", 900)
        orders.ship("k-9", "ship")

        await().atMost(Duration.ofSeconds(60))
            .until { records.findByAggregateId("k-9").all { it.status == OutboxRecordStatus.COMPLETED } }

        val privateLog = context.getBean("privateShipmentLog")
        assertThat(internalLog.entries).containsExactly("internal: k-9")
        assertThat((privateLog as PrivateShipmentLog).entries).containsExactly("private: k-9")
        assertThat(records.findByAggregateId("k-9").map { it.retryCount }).containsOnly(0)
    }
}
