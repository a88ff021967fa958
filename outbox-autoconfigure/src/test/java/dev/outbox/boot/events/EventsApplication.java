package dev.outbox.boot.events;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.transaction.event.TransactionalEventListener;

/** An application that publishes its events with Spring's API and has listeners of its own for them. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class EventsApplication {

    @Bean
    OwnListeners ownListeners() {
        return new OwnListeners();
    }

    /** The application's own listeners: they keep receiving the events the outbox writes. */
    public static class OwnListeners {

        final List<Object> received = new CopyOnWriteArrayList<>();
        final List<Object> receivedAfterCommit = new CopyOnWriteArrayList<>();

        @EventListener
        void on(Object event) {
            if (event.getClass().getEnclosingClass() == ShopEvents.class) {
                received.add(event);
            }
        }

        @TransactionalEventListener
        void afterCommit(Object event) {
            if (event.getClass().getEnclosingClass() == ShopEvents.class) {
                receivedAfterCommit.add(event);
            }
        }
    }
}
