package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.Delivery;
import dev.outbox.testing.ForwardingRecordStore;
import dev.outbox.testing.InMemoryRecordStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Whatever a handler does (checked and unchecked exceptions, errors, hanging, interrupting its own thread), the
 * processing loop lives on, and the outcome is stored on the record. Part: {@link LaneWorker} (timeouts, interrupt
 * hygiene), with {@link ErrorText}.
 */
class HandlerFaultsTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final Duration HANDLER_TIMEOUT = Duration.ofMillis(300);

    private final InMemoryRecordStore records = new InMemoryRecordStore();
    /** Like a connection pool, it refuses to work on an interrupted thread. */
    private final ForwardingRecordStore store = new ForwardingRecordStore(records) {
        @Override
        public boolean scheduleRetry(Delivery delivery, int retryCount, Instant nextRetryAt, String lastError) {
            refuseIfInterrupted();
            return super.scheduleRetry(delivery, retryCount, nextRetryAt, lastError);
        }

        @Override
        public boolean markFailed(Delivery delivery, int retryCount, String lastError) {
            refuseIfInterrupted();
            return super.markFailed(delivery, retryCount, lastError);
        }

        private void refuseIfInterrupted() {
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("interrupted during connection acquisition");
            }
        }
    };
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    private OutboxProcessor processor;

    @AfterEach
    void close() {
        processor.close();
    }

    @Test
    void noHandlerFaultStopsTheLoopAndEachIsStoredOnItsRecord() {
        OutboxRecord checked = save("checked");
        OutboxRecord unchecked = save("unchecked");
        OutboxRecord overflow = save("overflow");
        OutboxRecord hangs = save("hangs");
        OutboxRecord interruptsAndThrows = save("interrupts-and-throws");
        OutboxRecord interruptsAndReturns = save("interrupts-and-returns");
        OutboxRecord nulInMessage = save("nul-in-message");
        processor = OutboxProcessor.builder().recordStore(store).clock(Clock.systemUTC())
                .retryPolicy(OutboxRetryPolicy.fixed(Duration.ofHours(1)))
                .options(ProcessingOptions.defaults().withPollInterval(Duration.ofMillis(50)).withConcurrency(2)
                        .withHandlerTimeout(HANDLER_TIMEOUT))
                .handler(record -> {
                    calls.computeIfAbsent(record.getAggregateId(), id -> new AtomicInteger()).incrementAndGet();
                    switch (record.getAggregateId()) {
                        case "checked" -> throw new IOException("disk full");
                        case "unchecked" -> throw new IllegalStateException("bad state");
                        case "overflow" -> recurse(1);
                        case "hangs" -> Thread.sleep(Duration.ofHours(1).toMillis());
                        case "interrupts-and-throws" -> {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException("gave up and left the thread interrupted");
                        }
                        case "interrupts-and-returns" -> Thread.currentThread().interrupt();
                        case "nul-in-message" -> throw new IllegalArgumentException("byte \u0000 at 3");
                        default -> { }
                    }
                }).build();

        processor.start();

        await().atMost(DEADLINE).until(() -> attempted(checked, unchecked, overflow, hangs, interruptsAndThrows, nulInMessage)
                && stored(interruptsAndReturns).getStatus() == OutboxRecordStatus.COMPLETED);
        assertThat(stored(checked).getLastError()).isEqualTo("java.io.IOException: disk full");
        assertThat(stored(unchecked).getLastError()).isEqualTo("java.lang.IllegalStateException: bad state");
        assertThat(stored(overflow).getLastError()).startsWith("java.lang.StackOverflowError");
        assertThat(stored(hangs).getLastError()).startsWith("dev.outbox.processing.HandlerTimeoutException: the handler "
                + "did not finish within PT0.3S and was interrupted").contains("InterruptedException");
        assertThat(stored(interruptsAndThrows).getLastError()).contains("gave up and left the thread interrupted");
        // GH-12: PostgreSQL text cannot hold U+0000, and an error text that cannot be stored loses the attempt.
        assertThat(stored(nulInMessage).getLastError())
                .isEqualTo("java.lang.IllegalArgumentException: byte \uFFFD at 3");

        OutboxRecord later = save("healthy");
        await().atMost(DEADLINE).until(() -> stored(later).getStatus() == OutboxRecordStatus.COMPLETED);
        assertThat(processor.isRunning()).isTrue();
        assertThat(calls.get("hangs")).as("the hanging record was not retried within the hour").hasValue(1);
    }

    @Test
    void theHandlerTimeoutMustBePositive() {
        processor = OutboxProcessor.builder().recordStore(store).handler(record -> { }).build();
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> ProcessingOptions.defaults().withHandlerTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("outbox.processing.handler-timeout must be positive but was PT0S");
        assertThat(ProcessingOptions.defaults().handlerTimeout()).as("no limit by default").isEmpty();
    }

    /** One failed attempt is stored: the record waits for its retry with the error. */
    private boolean attempted(OutboxRecord... candidates) {
        for (OutboxRecord record : candidates) {
            OutboxRecord stored = stored(record);
            if (stored.getRetryCount() != 1 || stored.getLastError() == null) {
                return false;
            }
        }
        return true;
    }

    private static int recurse(int depth) {
        return recurse(depth + 1) + 1;
    }

    private OutboxRecord stored(OutboxRecord record) {
        return records.findById(record.getId()).orElseThrow();
    }

    private OutboxRecord save(String aggregateId) {
        return records.save(OutboxRecord.builder().aggregateId(aggregateId).eventType("Fault").payload("{}")
                .build(Clock.systemUTC()));
    }
}
