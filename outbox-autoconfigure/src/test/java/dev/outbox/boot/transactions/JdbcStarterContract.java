package dev.outbox.boot.transactions;

import java.util.List;

/** The JDBC write path: no JPA, Spring Boot's {@code JdbcTransactionManager}. */
abstract class JdbcStarterContract extends DefaultOutboxContract {

    @Override
    protected List<String> writePathProperties() {
        return List.of("spring.autoconfigure.exclude="
                + "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
                + "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration");
    }
}
