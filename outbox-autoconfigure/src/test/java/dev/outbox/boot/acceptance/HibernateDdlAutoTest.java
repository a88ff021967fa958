package dev.outbox.boot.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.jdbc.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Whatever {@code spring.jpa.hibernate.ddl-auto} says, the outbox table is the changelog's: Hibernate creates and
 * drops the application's own tables, never the outbox's. Found by an application on embedded H2 that left
 * {@code ddl-auto} unset: Spring Boot's default there, {@code create-drop}, re-created the outbox table without its
 * generated {@code sequence_no}, and every write failed with {@code NULL not allowed for column "SEQUENCE_NO"}.
 */
class HibernateDdlAutoTest extends DatabasePerTestClass {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }

    @ParameterizedTest(name = "ddl-auto={0}")
    @ValueSource(strings = {"(Spring Boot's default)", "create", "create-drop", "update"})
    void theApplicationWritesRecordsWhateverDdlAutoSays(String ddlAuto) {
        List<String> properties = new ArrayList<>(dataSourceProperties());
        properties.add("spring.main.banner-mode=off");
        properties.add("outbox.schema-initialization.enabled=true");
        if (!ddlAuto.startsWith("(")) {
            properties.add("spring.jpa.hibernate.ddl-auto=" + ddlAuto);
        }
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(AcceptanceApplication.class)
                .web(WebApplicationType.NONE).properties(properties.toArray(String[]::new)).run()) {

            OutboxRecord written = app.getBean(TestOrderService.class).placeOrder("order-" + ddlAuto.length(), 7);

            assertThat(app.getBean(OutboxRecordRepository.class).findById(written.getId())).get()
                    .extracting(OutboxRecord::getSequence).as("numbered by the changelog's column").isNotNull();
            assertThat(app.getBean(TestOrderRepository.class).count()).as("the application's own table, created by "
                    + "Hibernate where ddl-auto says so").isEqualTo(1);
        }
    }
}
