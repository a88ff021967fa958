package dev.outbox.example.orders.handling;

import dev.outbox.OutboxRecord;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The {@code handled_event} table, written with plain JDBC so that an insert can skip a row that already exists. */
@Repository
public class HandledEventStore {

    private static final String INSERT_IF_ABSENT = """
            INSERT INTO handled_event (record_id, aggregate_id, event_type, payload, sequence_no, handled_at)
            SELECT :recordId, :aggregateId, :eventType, :payload, :sequence, :handledAt
            WHERE NOT EXISTS (SELECT 1 FROM handled_event WHERE record_id = :recordId)
            """;

    private final JdbcClient jdbc;

    public HandledEventStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Stores {@code record} as handled unless it was stored before.
     *
     * @return true if this call stored it, false for a record handled earlier (a redelivery)
     */
    public boolean storeIfAbsent(OutboxRecord record, Instant handledAt) {
        try {
            int rows = jdbc.sql(INSERT_IF_ABSENT)
                    .param("recordId", record.getId())
                    .param("aggregateId", record.getAggregateId())
                    .param("eventType", record.getEventType())
                    .param("payload", record.getPayload())
                    .param("sequence", record.getSequence(), java.sql.Types.BIGINT)
                    .param("handledAt", OffsetDateTime.ofInstant(handledAt, ZoneOffset.UTC))
                    .update();
            return rows == 1;
        } catch (DuplicateKeyException e) {
            // Another instance stored the same record between the NOT EXISTS check and the insert.
            return false;
        }
    }

    /** The handled events of one order, in outbox order. */
    public List<HandledEvent> findByAggregateId(String aggregateId) {
        return jdbc.sql("""
                        SELECT record_id, aggregate_id, event_type, payload, sequence_no, handled_at
                        FROM handled_event WHERE aggregate_id = :aggregateId
                        ORDER BY sequence_no, handled_at, record_id
                        """)
                .param("aggregateId", aggregateId)
                .query(HandledEventStore::toHandledEvent)
                .list();
    }

    /** How many times {@code recordId} is stored: 0 or 1. */
    public int countByRecordId(String recordId) {
        Integer count = jdbc.sql("SELECT COUNT(*) FROM handled_event WHERE record_id = :recordId")
                .param("recordId", recordId)
                .query(Integer.class)
                .single();
        return Objects.requireNonNull(count);
    }

    private static HandledEvent toHandledEvent(ResultSet rs, int rowNum) throws SQLException {
        long sequence = rs.getLong("sequence_no");
        @Nullable Long nullableSequence = rs.wasNull() ? null : sequence;
        OffsetDateTime handledAt = Objects.requireNonNull(rs.getObject("handled_at", OffsetDateTime.class));
        return new HandledEvent(rs.getString("record_id"), rs.getString("aggregate_id"), rs.getString("event_type"),
                rs.getString("payload"), nullableSequence, handledAt.toInstant());
    }
}
