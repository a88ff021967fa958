package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.jdbc.CommitHooks;
import dev.outbox.jdbc.JdbcOutboxRecordRepository;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.spi.OutboxObservation;
import jakarta.persistence.EntityManagerFactory;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.orm.jpa.EntityManagerFactoryInfo;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link OutboxRecordRepository} for JPA applications (Hibernate): records are written and read with the outbox's
 * SQL on the JDBC connection of the entity manager's transaction, which {@code JpaTransactionManager} binds to the
 * persistence unit's {@link DataSource}, so they commit or roll back with the entities; the transaction's records are
 * inserted as one JDBC batch just before it commits. It is {@link JdbcOutboxRecordRepository} on the persistence
 * unit's DataSource. The outbox maps no entity: the persistence unit needs no {@code @EntityScan} for it, and
 * Hibernate's schema tooling never sees the outbox tables.
 */
public final class JpaOutboxRecordRepository implements OutboxRecordRepository {

    private final JdbcOutboxRecordRepository records;

    private JpaOutboxRecordRepository(JdbcOutboxRecordRepository records) {
        this.records = records;
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
        return new JpaOutboxRecordRepository(new JdbcOutboxRecordRepository(dataSource, transactionManager, sql,
                maxPayloadBytes, hooks, observation));
    }

    /** As {@link JdbcOutboxRecordRepository#save(OutboxRecord)}: joins the entity manager's transaction. */
    @Override
    public OutboxRecord save(OutboxRecord record) {
        return records.save(record);
    }

    @Override
    public List<OutboxRecord> saveAll(Iterable<OutboxRecord> batch) {
        return records.saveAll(batch);
    }

    @Override
    public boolean isTransactionActive() {
        return records.isTransactionActive();
    }

    @Override
    public Optional<OutboxRecord> findById(String id) {
        return records.findById(id);
    }

    @Override
    public List<OutboxRecord> findByAggregateId(String aggregateId) {
        return records.findByAggregateId(aggregateId);
    }

    @Override
    public List<OutboxRecord> findByStatus(OutboxRecordStatus status, int limit) {
        return records.findByStatus(status, limit);
    }

    @Override
    public long countByStatus(OutboxRecordStatus status) {
        return records.countByStatus(status);
    }
}
