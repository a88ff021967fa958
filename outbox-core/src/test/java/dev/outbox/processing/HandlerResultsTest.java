package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.NonRetryableRecordException;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.RetryLaterException;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a handler can say besides success and a retryable failure, through the engine. Part: {@link FailureDecision},
 * whose every branch {@code FailureDecisionTest} checks on its own.
 */
class HandlerResultsTest {

    private final MutableClock clock = MutableClock.startingNow();
    private final InMemoryRecordStore store = new InMemoryRecordStore();
    private final List<String> handled = new CopyOnWriteArrayList<>();
    private OutboxProcessor processor;

    @AfterEach
    void close() {
        processor.close();
    }

    @Test
    void aNonRetryableFailureFailsTheRecordAtOnceWithItsMessage() {
        OutboxRecord poison = save("A", "unreadable");
        save("A", "a2");
        processor = processor(record -> {
            handled.add(record.getPayload());
            if (record.getPayload().equals("unreadable")) {
                throw new NonRetryableRecordException("payload is not an OrderPlaced");
            }
        });

        processor.processDueRecords();
        clock.advance(Duration.ofHours(1));
        processor.processDueRecords();

        OutboxRecord stored = store.findById(poison.getId()).orElseThrow();
        assertThat(stored.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(stored.getRetryCount()).isZero();
        assertThat(stored.getLastError()).contains("NonRetryableRecordException")
                .contains("payload is not an OrderPlaced");
        assertThat(handled).as("one attempt; a2 waits behind the failed record").containsExactly("unreadable");
    }

    @Test
    void retryLaterPostponesTheRecordWithoutUsingAnAttemptAndItsAggregateWaits() {
        AtomicInteger calls = new AtomicInteger();
        OutboxRecord busy = save("A", "a1");
        save("A", "a2");
        save("B", "b1");
        processor = processor(record -> {
            handled.add(record.getPayload());
            if (record.getPayload().equals("a1") && calls.incrementAndGet() <= 5) {
                throw new RetryLaterException(Duration.ofSeconds(30), "rate limited");
            }
        });

        for (int round = 0; round < 5; round++) {
            processor.processDueRecords();
            OutboxRecord stored = store.findById(busy.getId()).orElseThrow();
            assertThat(stored.getRetryCount()).as("round %d", round).isZero();
            assertThat(stored.getNextRetryAt()).isEqualTo(clock.instant().plusSeconds(30));
            clock.advance(Duration.ofSeconds(29));
            assertThat(processor.processDueRecords()).as("not before the delay").isZero();
            clock.advance(Duration.ofSeconds(1));
        }
        processor.processDueRecords();

        // A and B run in parallel: only the order within each aggregate is defined.
        assertThat(handled.stream().filter(payload -> payload.startsWith("a")))
                .containsExactly("a1", "a1", "a1", "a1", "a1", "a1", "a2");
        assertThat(handled).filteredOn("b1"::equals).hasSize(1);
        assertThat(store.findById(busy.getId()).orElseThrow().getStatus()).as("5 postponements, max-retries 3")
                .isEqualTo(OutboxRecordStatus.COMPLETED);
    }

    // GH-12: a failure of the library's own call machinery (reflection refusing the call) was counted and retried as
    // a handler failure, and FAILED the record, parking its aggregate, once the retries were used up.
    @Test
    void aFailureToCallTheHandlerUsesNoAttemptAndTheRecordWaitsForTheNextTry() {
        OutboxRecord blocked = save("A", "a1");
        save("A", "a2");
        processor = processor(record -> {
            handled.add(record.getPayload());
            throw new HandlerInvocationException("@OutboxHandler method Recorder.handle",
                    new IllegalAccessException("cannot access a member of class Recorder"));
        });

        for (int round = 0; round < 5; round++) {
            processor.processDueRecords();
            OutboxRecord stored = store.findById(blocked.getId()).orElseThrow();
            assertThat(stored.getStatus()).as("round %d", round).isEqualTo(OutboxRecordStatus.NEW);
            assertThat(stored.getRetryCount()).as("no attempt used").isZero();
            assertThat(stored.getNextRetryAt()).isEqualTo(clock.instant().plus(HandlerInvocationException.RETRY_DELAY));
            assertThat(stored.getLastError()).startsWith("dev.outbox.processing.HandlerInvocationException: the "
                    + "outbox could not call @OutboxHandler method Recorder.handle");
            clock.advance(HandlerInvocationException.RETRY_DELAY);
        }

        assertThat(handled).as("5 tries, max-retries 3; a2 waits behind a1").containsExactly("a1", "a1", "a1", "a1",
                "a1");
    }

    @Test
    void aNegativeDelayIsRefused() {
        processor = processor(record -> { });
        assertThatThrownBy(() -> new RetryLaterException(Duration.ofSeconds(-1), "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("delay must not be negative but was PT-1S");
    }

    private OutboxProcessor processor(dev.outbox.OutboxRecordProcessor handler) {
        return OutboxProcessor.builder().recordStore(store).handler(handler).clock(clock)
                .retryPolicy(OutboxRetryPolicy.defaults().withMaxRetries(3)).build();
    }

    private OutboxRecord save(String aggregateId, String payload) {
        OutboxRecord record = OutboxRecord.builder().aggregateId(aggregateId).eventType("E").payload(payload)
                .build(clock);
        store.save(record);
        return record;
    }
}
