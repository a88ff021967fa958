package dev.outbox.boot.events.modulith;

import dev.outbox.boot.events.modulith.orders.OrderManagement;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/** A Spring Modulith style application: its orders module externalizes an event with {@code @Externalized}. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ModulithApplication {

    @Bean
    OrderManagement orderManagement(ApplicationEventPublisher events) {
        return new OrderManagement(events);
    }
}
