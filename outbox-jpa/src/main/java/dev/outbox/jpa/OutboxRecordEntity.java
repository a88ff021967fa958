package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.RecordHeaders;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.PostLoad;
import jakarta.persistence.PostPersist;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Instant;
import org.hibernate.annotations.AttributeBinderType;
import org.hibernate.annotations.Generated;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.binder.AttributeBinder;
import org.hibernate.boot.spi.MetadataBuildingContext;
import org.hibernate.dialect.H2Dialect;
import org.hibernate.generator.EventType;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.mapping.Property;
import org.hibernate.type.SqlTypes;
import org.jspecify.annotations.Nullable;
import org.springframework.data.domain.Persistable;

/**
 * JPA mapping of {@code outbox_record}, for the repository's reads and for Hibernate's schema validation: records are
 * inserted as JDBC batches ({@link RecordInserts}), and the processing side reads and updates rows with plain SQL.
 * Applications never see this class; they work with {@link OutboxRecord}.
 */
@Entity
@Table(name = OutboxRecordEntity.TABLE)
public class OutboxRecordEntity implements Persistable<String> {

    static final String TABLE = "outbox_record";

    /** The changelog's H2 payload length, the longest CHARACTER VARYING that H2 allows. */
    private static final int PAYLOAD_LENGTH = 1_000_000_000;

    /** Ids are assigned before insert, so Spring Data cannot tell a new entity by its id: this flag does. */
    @Transient
    private boolean isNew = true;

    @Id
    @Column(name = "id", length = 36, nullable = false, updatable = false)
    private String id = "";

    /**
     * Assigned by the database on insert; read back so the entity carries the processing order. NOT NULL as in the
     * changelog: Hibernate never writes it, so never checks it.
     */
    @Generated(event = EventType.INSERT)
    @Column(name = "sequence_no", nullable = false, insertable = false, updatable = false)
    private @Nullable Long sequence;

    @Enumerated(EnumType.STRING)
    @JdbcTypeCode(SqlTypes.VARCHAR) // not the native ENUM Hibernate would create on H2, MariaDB and MySQL
    @Column(name = "status", length = 20, nullable = false)
    private OutboxRecordStatus status = OutboxRecordStatus.NEW;

    @Column(name = "aggregate_id", length = 255, nullable = false, updatable = false)
    private String aggregateId = "";

    @Column(name = "event_type", length = 255, nullable = false, updatable = false)
    private String eventType = "";

    /**
     * Past every VARCHAR limit, so TEXT on PostgreSQL and LONGTEXT on MariaDB and MySQL, as in the changelog. The type
     * code keeps H2, whose Hibernate VARCHAR ends at 1,048,576 characters, on VARCHAR and String binding, not CLOB.
     */
    @JdbcTypeCode(SqlTypes.VARCHAR)
    @H2Varchar
    @Column(name = "payload", length = PAYLOAD_LENGTH, nullable = false, updatable = false)
    private String payload = "";

    @Column(name = "partition_no", nullable = false, updatable = false)
    private int partition;

    /** UTC with microseconds, whatever the application sets as hibernate.type.preferred_instant_jdbc_type. */
    @JdbcTypeCode(SqlTypes.TIMESTAMP_UTC)
    @Column(name = "created_at", nullable = false, updatable = false, secondPrecision = 6)
    private Instant createdAt = Instant.EPOCH;

    @JdbcTypeCode(SqlTypes.TIMESTAMP_UTC)
    @Column(name = "completed_at", secondPrecision = 6)
    private @Nullable Instant completedAt;

    @Column(name = "retry_count", nullable = false)
    private int retryCount;

    @JdbcTypeCode(SqlTypes.TIMESTAMP_UTC)
    @Column(name = "next_retry_at", nullable = false, secondPrecision = 6)
    private Instant nextRetryAt = Instant.EPOCH;

    @Column(name = "last_error", length = OutboxRecord.MAX_ERROR_LENGTH)
    private @Nullable String lastError;

    @Column(name = "trace_context", length = OutboxRecord.MAX_TRACE_CONTEXT_LENGTH, updatable = false)
    private @Nullable String traceContext;

    /** Stored as {@link RecordHeaders#encode}; null when the record has none. */
    @Column(name = "headers", length = RecordHeaders.MAX_STORED_LENGTH, updatable = false)
    private @Nullable String headers;

    /** Empty for the application's record processor: NOT NULL, so that per-handler order compares plainly. */
    @Column(name = "handler_id", length = OutboxRecord.MAX_HANDLER_ID_LENGTH, nullable = false, updatable = false)
    private String handlerId = "";

    protected OutboxRecordEntity() {
        // for JPA
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public boolean isNew() {
        return isNew;
    }

    @PostPersist
    @PostLoad
    void markStored() {
        isNew = false;
    }

    OutboxRecord toRecord() {
        return OutboxRecord.restore().id(id).sequence(sequence).status(status).aggregateId(aggregateId)
                .eventType(eventType).payload(payload).partition(partition).createdAt(createdAt)
                .completedAt(completedAt).retryCount(retryCount).nextRetryAt(nextRetryAt).lastError(lastError)
                .traceContext(traceContext).handlerId(handlerId)
                .headers(RecordHeaders.decode(headers)).build();
    }

    /**
     * On H2, has Hibernate create the column as CHARACTER VARYING of its full length, as the changelog does: past
     * 1,048,576 characters, Hibernate's H2 DDL would otherwise be CLOB.
     */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.FIELD)
    @AttributeBinderType(binder = H2VarcharBinder.class)
    @interface H2Varchar {
    }

    /** Applies {@link H2Varchar}; public because Hibernate instantiates it. */
    public static final class H2VarcharBinder implements AttributeBinder<H2Varchar> {

        @Override
        public void bind(H2Varchar annotation, MetadataBuildingContext context, PersistentClass entity,
                Property property) {
            if (context.getMetadataCollector().getDatabase().getDialect() instanceof H2Dialect) {
                property.getValue().getColumns()
                        .forEach(column -> column.setSqlType("character varying(" + column.getLength() + ")"));
            }
        }
    }
}
