package dev.outbox.example.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/** The example as it runs: orders written with JdbcClient, their events handled after commit, rollbacks leave none. */
@SpringBootTest(properties = "demo.enabled=false")
class JdbcOrderFlowTest {

    @Autowired
    Orders orders;

    @Autowired
    Confirmations confirmations;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    TransactionTemplate transactions;

    @Test
    void placedOrdersAreConfirmedAndARolledBackOrderLeavesNeitherRowNorEvent() {
        orders.place("order-1", "Ada", 1_200);
        orders.place("order-2", "Grace", 3_400);
        assertThatThrownBy(() -> transactions.executeWithoutResult(status -> {
            orders.place("order-3", "Edsger", 560);
            throw new IllegalStateException("payment declined");
        })).hasMessage("payment declined");

        await().atMost(Duration.ofSeconds(60)).until(() -> confirmations.confirmed().size() == 2);
        assertThat(confirmations.confirmed()).containsExactlyInAnyOrder("order-1", "order-2");
        assertThat(jdbc.sql("SELECT id FROM orders ORDER BY id").query(String.class).list())
                .containsExactly("order-1", "order-2");
        assertThat(jdbc.sql("SELECT COUNT(*) FROM outbox_record WHERE aggregate_id = 'order-3'").query(Long.class)
                .single()).isZero();
        assertThat(jdbc.sql("SELECT COUNT(*) FROM outbox_record WHERE status = 'COMPLETED'").query(Long.class)
                .single()).isEqualTo(2);
    }
}
