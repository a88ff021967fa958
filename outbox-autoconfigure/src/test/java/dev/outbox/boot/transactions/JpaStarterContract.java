package dev.outbox.boot.transactions;

import java.util.List;

/** The JPA write path: Hibernate and Spring Boot's {@code JpaTransactionManager}. */
abstract class JpaStarterContract extends DefaultOutboxContract implements JpaShapes {

    @Override
    protected List<String> writePathProperties() {
        return List.of();
    }
}
