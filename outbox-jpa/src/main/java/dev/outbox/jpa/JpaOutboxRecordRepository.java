package dev.outbox.jpa;

import dev.outbox.OutboxRecordRepository;
import dev.outbox.jpa.dialect.SqlStatements;
import dev.outbox.spi.OutboxObservation;
import jakarta.persistence.EntityManagerFactory;
import javax.sql.DataSource;
import org.springframework.orm.jpa.EntityManagerFactoryInfo;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link OutboxRecordRepository} for JPA applications (Hibernate): records are written and read with the outbox's
 * SQL on the JDBC connection of the entity manager's transaction, which {@code JpaTransactionManager} binds to the
 * persistence unit's {@link DataSource}, so they commit or roll back with the entities; the transaction's records are
 * inserted as one JDBC batch just before it commits: the same write path as {@link JdbcOutboxRecordRepository}, on
 * the persistence unit's DataSource. The outbox maps no entity: the persistence unit needs no {@code @EntityScan} for it, and
 * Hibernate's schema tooling never sees the outbox tables.
 */
public final class JpaOutboxRecordRepository extends SqlRecordRepository {

    private JpaOutboxRecordRepository(DataSource dataSource, PlatformTransactionManager transactionManager,
            SqlStatements sql, int maxPayloadBytes, CommitHooks hooks, OutboxObservation observation) {
        super(dataSource, transactionManager, sql, maxPayloadBytes, hooks, observation);
    }

    /**
     * A repository on the DataSource of {@code entityManagerFactory}'s persistence unit.
     *
     * @param entityManagerFactory a Spring-built factory ({@code LocalContainerEntityManagerFactoryBean}, as Spring
     *     Boot makes), which names its DataSource
     * @param transactionManager the application's transaction manager, for saves made outside any transaction
     * @throws IllegalArgumentException when the factory does not name its DataSource
     */
    public static JpaOutboxRecordRepository create(EntityManagerFactory entityManagerFactory,
            PlatformTransactionManager transactionManager, SqlStatements sql, int maxPayloadBytes, CommitHooks hooks,
            OutboxObservation observation) {
        DataSource dataSource = entityManagerFactory instanceof EntityManagerFactoryInfo info
                ? info.getDataSource() : null;
        if (dataSource == null) {
            throw new IllegalArgumentException("The entity manager factory " + entityManagerFactory + " names no "
                    + "DataSource, so the outbox cannot tell which transaction its records join: build it with "
                    + "Spring (LocalContainerEntityManagerFactoryBean with a DataSource), or use "
                    + "JdbcOutboxRecordRepository on the DataSource");
        }
        return new JpaOutboxRecordRepository(dataSource, transactionManager, sql, maxPayloadBytes, hooks,
                observation);
    }
}
