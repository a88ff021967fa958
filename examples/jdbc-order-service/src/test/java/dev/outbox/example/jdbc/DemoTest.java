package dev.outbox.example.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What {@code mvn -f examples/jdbc-order-service spring-boot:run} shows: the demo runs as the application starts, and
 * by the time the start returns its orders are confirmed, and the rolled-back one left nothing.
 */
@SpringBootTest(properties = "spring.datasource.url=jdbc:h2:mem:jdbc-orders-demo;DB_CLOSE_DELAY=-1")
@ExtendWith(OutputCaptureExtension.class)
class DemoTest {

    @Autowired
    Confirmations confirmations;

    @Autowired
    JdbcClient jdbc;

    @Test
    void theDemoPlacesTwoOrdersThatTheirHandlerConfirmsAndOneThatRollsBack(CapturedOutput output) {
        assertThat(confirmations.confirmed()).containsExactlyInAnyOrder("demo-1", "demo-2");
        assertThat(jdbc.sql("SELECT id FROM orders ORDER BY id").query(String.class).list())
                .containsExactly("demo-1", "demo-2");
        assertThat(jdbc.sql("SELECT COUNT(*) FROM outbox_record WHERE aggregate_id = 'demo-3'").query(Long.class)
                .single()).isZero();
        assertThat(output.getOut()).contains("Order demo-3 rolled back (payment declined)")
                .containsPattern("Orders confirmed by their outbox handler: \\[demo-[12], demo-[12]\\]");
    }
}
