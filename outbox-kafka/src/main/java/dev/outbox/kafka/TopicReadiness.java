package dev.outbox.kafka;

import dev.outbox.internal.Futures;
import dev.outbox.publish.PublishException;
import dev.outbox.publish.PublishException.Reason;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.jspecify.annotations.Nullable;

/**
 * Whether a topic can take sends, found out once per topic however many records go there, and never on the caller's
 * thread: the admin client (when there is one) says whether the topic exists, so a missing topic fails at once; then
 * the producer fetches the topic's metadata ({@code partitionsFor}, which may block for {@code max.block.ms}) on a
 * thread of its own, so that a send never blocks an engine worker on metadata and blocked waits of different topics
 * run side by side instead of one after another. A verdict is kept for {@code expiry}, so that a topic created later
 * is found; {@link #forget} drops it at once after a failed send.
 */
final class TopicReadiness {

    private final Producer<String, byte[]> producer;
    private final @Nullable Admin lookup;
    private final Duration lookupTimeout;
    private final long expiryNanos;
    private final Executor blockingCalls;
    /** Nanoseconds of a monotonic clock ({@code System::nanoTime}), which dates the verdicts. */
    private final LongSupplier nanoClock;
    private final ConcurrentMap<String, Check> checks = new ConcurrentHashMap<>();

    TopicReadiness(Producer<String, byte[]> producer, @Nullable Admin lookup, Duration lookupTimeout,
            Duration expiry, Executor blockingCalls, LongSupplier nanoClock) {
        this.producer = producer;
        this.lookup = lookup;
        this.lookupTimeout = lookupTimeout;
        this.expiryNanos = expiry.toNanos();
        this.blockingCalls = blockingCalls;
        this.nanoClock = nanoClock;
    }

    /**
     * Completes when sends to {@code topic} will not wait for metadata; fails with a {@link PublishException} whose
     * message lacks the record (the caller adds it) when they cannot succeed now.
     */
    CompletableFuture<Void> of(String topic) {
        long now = nanoClock.getAsLong();
        Check started = new Check(new CompletableFuture<>(), now);
        Check check = checks.compute(topic, (name, known) -> known != null
                && (!known.ready.isDone() || now - known.startedAt < expiryNanos) ? known : started);
        if (check == started) {
            begin(topic, started.ready); // after compute: a verdict that comes at once must not re-enter the map
        }
        return check.ready;
    }

    /** Asks again on the next send: a send to the topic failed, so what was known may be stale. */
    void forget(String topic) {
        Check check = checks.get(topic);
        if (check != null && check.ready.isDone()) {
            checks.remove(topic, check);
        }
    }

    private void begin(String topic, CompletableFuture<Void> ready) {
        CompletableFuture<@Nullable Boolean> exists = lookup == null ? CompletableFuture.completedFuture(null)
                : lookUp(topic).exceptionally(unknown -> null); // the cluster could not say: the producer will
        exists.thenAcceptAsync(found -> {
            if (Boolean.FALSE.equals(found)) {
                ready.completeExceptionally(missing(null));
                return;
            }
            try {
                producer.partitionsFor(topic);
                ready.complete(null);
            } catch (RuntimeException e) {
                notReady(topic, e, ready);
            }
        }, blockingCalls).exceptionally(failure -> {
            ready.completeExceptionally(Futures.unwrap(failure)); // the executor refused, say
            return null;
        });
    }

    private void notReady(String topic, RuntimeException failure, CompletableFuture<Void> ready) {
        if (!(failure instanceof TimeoutException && String.valueOf(failure.getMessage()).contains("metadata"))) {
            ready.completeExceptionally(KafkaOutboxPublisher.translate("", failure));
        } else if (lookup == null) {
            ready.completeExceptionally(new PublishException(Reason.TIMEOUT, failure.getMessage()
                    + " (the topic may not exist, or the cluster is not reachable)", failure));
        } else {
            // the metadata did not come: ask again whether the topic exists (it may have been deleted meanwhile)
            lookUp(topic).whenComplete((found, unknown) -> ready.completeExceptionally(unknown != null
                    ? new PublishException(Reason.CONNECTION, failure.getMessage()
                            + "; the cluster could not say whether the topic exists: " + Futures.unwrap(unknown),
                            failure)
                    : found ? new PublishException(Reason.TIMEOUT, failure.getMessage() + "; the topic exists",
                            failure)
                    : missing(failure)));
        }
    }

    /** True when the topic exists, false when the cluster says it does not; fails when the cluster did not say. */
    private CompletableFuture<Boolean> lookUp(String topic) {
        Admin admin = lookup;
        if (admin == null) {
            throw new IllegalStateException("no topic lookup");
        }
        return admin.describeTopics(List.of(topic),
                        new DescribeTopicsOptions().timeoutMs((int) lookupTimeout.toMillis()))
                .allTopicNames().toCompletionStage().toCompletableFuture()
                .thenApply(found -> true)
                .exceptionallyCompose(failure -> Futures.unwrap(failure) instanceof UnknownTopicOrPartitionException
                        ? CompletableFuture.completedFuture(false) : CompletableFuture.failedFuture(failure));
    }

    private static PublishException missing(@Nullable Throwable cause) {
        return new PublishException(Reason.DESTINATION_NOT_FOUND, "the topic does not exist", cause);
    }

    private record Check(CompletableFuture<Void> ready, long startedAt) {
    }
}
