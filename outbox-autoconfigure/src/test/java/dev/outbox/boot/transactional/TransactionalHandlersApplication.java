package dev.outbox.boot.transactional;

import javax.sql.DataSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** An application whose one handler is transactional: it writes a row to the outbox's database per record. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class TransactionalHandlersApplication {

    @Bean
    ShipmentProjection shipmentProjection(DataSource dataSource) {
        return new ShipmentProjection(dataSource);
    }
}
