package dev.outbox.boot.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecordRepository;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/** What the JDBC starter brings: the whole outbox, and neither JPA nor Hibernate. */
class JdbcStarterClassPathTest {

    @Test
    void neitherJpaNorHibernateIsOnTheClassPath() {
        for (String type : new String[] {"jakarta.persistence.EntityManager", "org.hibernate.Session",
            "org.springframework.orm.jpa.JpaTransactionManager",
            "org.springframework.data.jpa.repository.JpaRepository"}) {
            assertThatThrownBy(() -> Class.forName(type)).as(type).isInstanceOf(ClassNotFoundException.class);
        }
    }

    @Test
    void theApplicationRunsOnSpringBootsJdbcTransactionManager() {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(JdbcAcceptanceApplication.class)
                .web(WebApplicationType.NONE)
                .properties("spring.datasource.url=jdbc:h2:mem:starter_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                        "outbox.schema-initialization.enabled=true", "outbox.processing.enabled=false",
                        "spring.main.banner-mode=off")
                .run()) {
            assertThat(app.getBeansOfType(OutboxRecordRepository.class)).hasSize(1);
            assertThat(app.getBeansOfType(Outbox.class)).hasSize(1);
            assertThat(app.getBean(PlatformTransactionManager.class)).isInstanceOf(JdbcTransactionManager.class);
        }
    }
}
