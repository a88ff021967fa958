package dev.outbox.example.publishing;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * What the consumer of the active profile received of this run's records. A consumer deduplicates by the
 * {@code outbox-record-id} header: a record whose acknowledgement was lost is published again (at least once). It
 * also passes over messages of earlier runs, whose records are not in this run's database: a Kafka topic or a
 * JetStream stream keeps them, and a consumer group that did not commit its last offsets reads some of them again.
 */
@Component
public class ReceivedMessages {

    private static final Logger log = LoggerFactory.getLogger(ReceivedMessages.class);

    private final List<Message> messages = new CopyOnWriteArrayList<>();
    private final Set<String> recordIds = ConcurrentHashMap.newKeySet();
    private final AtomicInteger ofEarlierRuns = new AtomicInteger();
    private final JdbcClient jdbc;

    ReceivedMessages(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** One message, as the consumer read it from the broker. */
    public record Message(String recordId, String eventType, String orderId, long sequence, String payload) {
    }

    void received(Message message) {
        if (!isOfThisRun(message.recordId())) {
            ofEarlierRuns.incrementAndGet();
            return;
        }
        if (!recordIds.add(message.recordId())) {
            log.info("Duplicate of record {} dropped", message.recordId());
            return;
        }
        messages.add(message);
        log.info("Received {} of {} (sequence {}): {}", message.eventType(), message.orderId(), message.sequence(),
                message.payload());
    }

    private boolean isOfThisRun(String recordId) {
        return jdbc.sql("SELECT COUNT(*) FROM outbox_record WHERE id = ?").param(recordId).query(Long.class)
                .single() > 0;
    }

    /** How many messages of earlier runs the consumer passed over. */
    int ofEarlierRuns() {
        return ofEarlierRuns.get();
    }

    public List<Message> messages() {
        return List.copyOf(messages);
    }

    /** Waits until {@code count} messages have arrived; false when they did not within {@code deadline}. */
    boolean await(int count, Duration deadline) throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        while (messages.size() < count) {
            if (System.nanoTime() > end) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }
}
