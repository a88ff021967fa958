package dev.outbox.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.jdbc.AbstractWriteRepositoryTest;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jpa.testing.JpaOutboxFixture;
import dev.outbox.jpa.testing.Shipment;
import jakarta.persistence.EntityManager;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.transaction.support.TransactionTemplate;

/** The write path on JPA, with plain Spring ORM transactions on H2 and an application entity beside the outbox. */
class JpaOutboxRecordRepositoryTest extends AbstractWriteRepositoryTest<JpaOutboxFixture> {

    @Override
    protected JpaOutboxFixture createFixture() {
        return JpaOutboxFixture.create(TestDatabase.Kind.H2, PAYLOAD_LIMIT);
    }

    @Test
    void anEntityAndItsRecordCommitTogetherAndRollBackTogether() {
        EntityManager entityManager = SharedEntityManagerCreator.createSharedEntityManager(
                fixture.entityManagerFactory());
        TransactionTemplate transaction = new TransactionTemplate(fixture.transactionManager());

        transaction.executeWithoutResult(status -> {
            entityManager.persist(new Shipment("s-1", "Lyon"));
            fixture.repository().save(record("s-1", "{\"shipped\":1}"));
        });
        transaction.executeWithoutResult(status -> {
            entityManager.persist(new Shipment("s-2", "Porto"));
            fixture.repository().save(record("s-2", "{\"shipped\":2}"));
            status.setRollbackOnly();
        });

        assertThat(fixture.jdbc().queryForList("SELECT id FROM test_shipment", String.class)).containsExactly("s-1");
        assertThat(fixture.repository().findByAggregateId("s-1")).hasSize(1);
        assertThat(fixture.repository().findByAggregateId("s-2")).isEmpty();
    }

    /**
     * The outbox maps no entity, so Hibernate's schema tooling, whatever an application sets (Spring Boot's default on
     * an embedded database is create-drop), never touches the changelog's tables.
     */
    @ParameterizedTest
    @ValueSource(strings = {"create", "create-drop", "update", "validate"})
    void hibernatesSchemaToolingLeavesTheOutboxTablesAsTheyAre(String ddlAuto) throws SQLException {
        try (JpaOutboxFixture own = JpaOutboxFixture.create(TestDatabase.Kind.H2, PAYLOAD_LIMIT)) {
            Map<String, String> before = outboxColumns(own);
            LocalContainerEntityManagerFactoryBean factory = JpaOutboxFixture.entityManagerFactory(own.database(),
                    ddlAuto);
            factory.destroy();

            assertThat(outboxColumns(own)).as("after %s and the factory's close", ddlAuto).isEqualTo(before)
                    .containsKeys("OUTBOX_RECORD.PAYLOAD", "OUTBOX_PARTITION.EPOCH");
            OutboxRecord record = record("agg-1", "{}");
            own.repository().save(record);
            assertThat(own.repository().findById(record.getId())).get().extracting(OutboxRecord::getSequence)
                    .as("numbered by the database").isNotNull();
        }
    }

    /** The outbox tables' columns as {@code TABLE.COLUMN} and their type and size. */
    private static Map<String, String> outboxColumns(JpaOutboxFixture own) throws SQLException {
        Map<String, String> columns = new TreeMap<>();
        try (Connection connection = own.database().dataSource().getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            try (ResultSet rows = metaData.getColumns(null, connection.getSchema(), "OUTBOX_%", "%")) {
                while (rows.next()) {
                    columns.put(rows.getString("TABLE_NAME") + "." + rows.getString("COLUMN_NAME"),
                            rows.getString("TYPE_NAME") + "(" + rows.getInt("COLUMN_SIZE") + ")"
                                    + Objects.toString(rows.getString("COLUMN_DEF"), ""));
                }
            }
        }
        return columns;
    }
}
