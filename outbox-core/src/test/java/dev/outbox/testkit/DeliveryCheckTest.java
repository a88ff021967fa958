package dev.outbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.testkit.DeliveryCheck.Consumed;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeliveryCheckTest {

    private final OutboxRecord a1 = record("a1", "A", 1);
    private final OutboxRecord a2 = record("a2", "A", 2);
    private final OutboxRecord b1 = record("b1", "B", 3);

    @Test
    void aCopyAfterLaterRecordsKeepsTheInvariant() {
        DeliveryCheck check = DeliveryCheck.of(List.of(a1, a2, b1), List.of(consumed(a1), consumed(b1),
                consumed(a2), consumed(a1)));

        assertThat(check.missing()).isEmpty();
        assertThat(check.unknown()).isEmpty();
        assertThat(check.copies()).isEqualTo(1);
        assertThat(check.orderViolations()).isEmpty();
    }

    @Test
    void findsWhatIsMissingUnknownAndOutOfOrder() {
        OutboxRecord stranger = record("x", "A", 9);
        DeliveryCheck check = DeliveryCheck.of(List.of(a1, a2, b1), List.of(consumed(a2), consumed(a1),
                consumed(stranger)));

        assertThat(check.missing()).containsExactly("b1");
        assertThat(check.unknown()).containsExactly(consumed(stranger));
        assertThat(check.orderViolations()).containsOnlyKeys("A");
    }

    private static Consumed consumed(OutboxRecord record) {
        return new Consumed(record.getId(), record.getAggregateId(), record.getSequence());
    }

    private static OutboxRecord record(String id, String aggregateId, long sequence) {
        return OutboxRecord.restore().id(id).sequence(sequence).status(OutboxRecordStatus.NEW)
                .aggregateId(aggregateId).eventType("E").payload("{}").createdAt(Instant.EPOCH)
                .retryCount(0).build();
    }
}
