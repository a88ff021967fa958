package dev.outbox.kafka;

import dev.outbox.OutboxRecord;
import dev.outbox.internal.Checks;
import dev.outbox.internal.DaemonThreads;
import dev.outbox.internal.Futures;
import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.publish.OutboxPublisher;
import dev.outbox.publish.OutboxRouter;
import dev.outbox.publish.PublishException;
import dev.outbox.publish.PublishException.Reason;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;

/**
 * Publishes records to Apache Kafka: one message per record to the topic its router names, keyed by the aggregate id
 * (so one aggregate stays in one Kafka partition), the payload as value, the record's creation time as timestamp and
 * the {@linkplain OutboxMessageHeaders outbox headers} as Kafka headers. A record counts as published when the
 * producer's send completes: with {@code acks=all}, when every in-sync replica has it. Create the producer with
 * {@link OutboxKafkaProducers}: idempotent, so the producer's own retries add no copies.
 *
 * <p>{@link #publish} never waits for a topic: the first send to a topic (and the first after a failed send, or after
 * {@linkplain Builder#topicCheckExpiry a few seconds}) waits, on a thread of the publisher's own, for one check of the
 * topic that all sends to it share: with a {@linkplain Builder#topicLookup topic lookup}, whether the topic exists,
 * then the producer's metadata of it. So a missing, unauthorised or unreachable topic costs one check, not one
 * {@code max.block.ms} per record on the engine's worker, and holds back no other topic. The one wait left on the
 * engine's worker is the producer's: a send waits for room when its buffer ({@code buffer.memory}, shared by all
 * topics) is full, at most {@code max.block.ms} ({@link OutboxKafkaProducers#DEFAULT_MAX_BLOCK} unless the settings
 * say otherwise), and then fails as a retryable {@link Reason#TIMEOUT}. The engine keeps at most one record per
 * aggregate in flight, so the buffer fills only with records far larger than usual.
 *
 * <p>Errors: a topic that does not exist is {@link Reason#DESTINATION_NOT_FOUND}, at once when the topic lookup says
 * so (without one, the producer waits for its metadata until {@code max.block.ms}, which counts as a retryable
 * {@link Reason#TIMEOUT}); a message over {@code max.request.size} or the topic's {@code max.message.bytes}
 * {@link Reason#TOO_LARGE}; a refused authorization {@link Reason#NOT_AUTHORIZED}; the producer's delivery timeout
 * {@link Reason#TIMEOUT}; Kafka's retriable errors {@link Reason#REJECTED}.
 *
 * <p>Immutable and thread-safe; build with {@link #builder(Producer)}. The producer and the admin client are the
 * caller's: this publisher never closes them.
 */
public final class KafkaOutboxPublisher implements OutboxPublisher {

    /** How long what a topic check found is kept unless the builder says otherwise. */
    public static final Duration DEFAULT_TOPIC_CHECK_EXPIRY = Duration.ofSeconds(5);

    /** How long the topic lookup may take before the producer's metadata decides alone. */
    private static final Duration TOPIC_LOOKUP_TIMEOUT = OutboxKafkaProducers.DEFAULT_MAX_BLOCK;

    private final Producer<String, byte[]> producer;
    private final OutboxRouter<String> router;
    private final OutboxMessageHeaders headers;
    private final Duration acknowledgementTimeout;
    private final @Nullable Admin topicLookup;
    private final Executor blockingCalls;
    private final TopicReadiness topics;

    private KafkaOutboxPublisher(Builder builder) {
        this.producer = builder.producer;
        this.router = Objects.requireNonNull(builder.router, "router");
        this.headers = builder.headers;
        this.acknowledgementTimeout = builder.acknowledgementTimeout;
        this.topicLookup = builder.topicLookup;
        // sends that may block (waiting for metadata or buffer space) run here, side by side, never on the engine's
        // workers; threads come when needed and go after a minute idle
        ThreadPoolExecutor threads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
                new SynchronousQueue<>(), DaemonThreads.numbered("outbox-kafka-send"));
        this.blockingCalls = threads;
        this.topics = new TopicReadiness(producer, topicLookup, TOPIC_LOOKUP_TIMEOUT, builder.topicCheckExpiry,
                threads, System::nanoTime);
    }

    public static Builder builder(Producer<String, byte[]> producer) {
        return new Builder(producer);
    }

    @Override
    public CompletionStage<?> publish(OutboxRecord record) {
        String topic = router.destinationFor(record);
        String where = "record " + record.getId() + " to Kafka topic '" + topic + "': ";
        RecordHeaders kafkaHeaders = new RecordHeaders();
        headers.of(record).forEach((name, value) -> kafkaHeaders.add(name, value.getBytes(StandardCharsets.UTF_8)));
        ProducerRecord<String, byte[]> message = new ProducerRecord<>(topic, null,
                record.getCreatedAt().toEpochMilli(), record.getAggregateId(),
                record.getPayload().getBytes(StandardCharsets.UTF_8), kafkaHeaders);
        CompletableFuture<Void> ready = topics.of(topic);
        if (ready.isDone() && !ready.isCompletedExceptionally()) {
            return send(where, message); // the usual case: the producer has the metadata, the send does not block
        }
        return ready.exceptionallyCompose(notReady -> CompletableFuture.failedFuture(withRecord(where, notReady)))
                .thenComposeAsync(ok -> send(where, message), blockingCalls);
    }

    private CompletionStage<RecordMetadata> send(String where, ProducerRecord<String, byte[]> message) {
        CompletableFuture<RecordMetadata> acknowledgement = new CompletableFuture<>();
        try {
            producer.send(message, (metadata, failure) -> {
                if (failure == null) {
                    acknowledgement.complete(metadata);
                } else {
                    acknowledgement.completeExceptionally(failure);
                }
            });
        } catch (RuntimeException e) {
            // a send can fail before it is queued: too large, metadata gone meanwhile, producer closed
            acknowledgement.completeExceptionally(e);
        }
        return acknowledgement.exceptionallyCompose(failure -> {
            topics.forget(message.topic());
            return CompletableFuture.failedFuture(withRecord(where, Futures.unwrap(failure)));
        });
    }

    @Override
    public Duration acknowledgementTimeout() {
        return acknowledgementTimeout;
    }

    @Override
    public String toString() {
        return "KafkaOutboxPublisher{" + router + ", " + headers + ", acknowledgementTimeout="
                + acknowledgementTimeout + (topicLookup == null ? "" : ", with topic lookup") + "}";
    }

    /** The failure as stored on the record: the record and the topic first. */
    private static PublishException withRecord(String where, Throwable failure) {
        Throwable cause = Futures.unwrap(failure);
        if (cause instanceof PublishException verdict) {
            return new PublishException(verdict.reason(), where + verdict.getMessage(), verdict.getCause());
        }
        if (cause instanceof TimeoutException && String.valueOf(cause.getMessage()).contains("metadata")) {
            // the producer lost the topic's metadata after the readiness check; the next send checks again
            return new PublishException(Reason.TIMEOUT, where + cause.getMessage()
                    + " (the topic may have been deleted, or the cluster is not reachable)", cause);
        }
        return translate(where, cause);
    }

    static PublishException translate(String where, Throwable failure) {
        String what = where + failure.getClass().getSimpleName() + ": " + failure.getMessage();
        if (failure instanceof RecordTooLargeException || failure instanceof RecordBatchTooLargeException) {
            return new PublishException(Reason.TOO_LARGE, what, failure);
        }
        if (failure instanceof AuthorizationException || failure instanceof AuthenticationException) {
            return new PublishException(Reason.NOT_AUTHORIZED, what, failure);
        }
        if (failure instanceof UnknownTopicOrPartitionException || failure instanceof InvalidTopicException) {
            return new PublishException(Reason.DESTINATION_NOT_FOUND, what, failure);
        }
        if (failure instanceof TimeoutException) {
            return new PublishException(Reason.TIMEOUT, what + "; the broker may have taken it", failure);
        }
        if (failure instanceof RetriableException) {
            return new PublishException(Reason.REJECTED, what, failure);
        }
        return new PublishException(Reason.CONNECTION, what, failure);
    }

    /** Not thread-safe. */
    public static final class Builder {

        private final Producer<String, byte[]> producer;
        private @Nullable OutboxRouter<String> router;
        private OutboxMessageHeaders headers = OutboxMessageHeaders.defaults();
        private Duration acknowledgementTimeout = DEFAULT_ACKNOWLEDGEMENT_TIMEOUT;
        private @Nullable Admin topicLookup;
        private Duration topicCheckExpiry = DEFAULT_TOPIC_CHECK_EXPIRY;

        private Builder(Producer<String, byte[]> producer) {
            this.producer = Objects.requireNonNull(producer, "producer");
        }

        /**
         * Where each record goes: a topic; see {@link dev.outbox.publish.EventTypeRouting} and
         * {@link KafkaTopicRouter}. Required.
         */
        public Builder router(OutboxRouter<String> router) {
            this.router = Objects.requireNonNull(router, "router");
            return this;
        }

        public Builder headers(OutboxMessageHeaders headers) {
            this.headers = Objects.requireNonNull(headers, "headers");
            return this;
        }

        /**
         * How long the engine waits for the producer's verdict before it counts the attempt as timed out; above the
         * producer's {@code delivery.timeout.ms} ({@value OutboxKafkaProducers#DEFAULT_DELIVERY_TIMEOUT_SECONDS} s
         * from {@link OutboxKafkaProducers}), so that the producer's own verdict comes first.
         */
        public Builder acknowledgementTimeout(Duration acknowledgementTimeout) {
            this.acknowledgementTimeout = Checks.positive("acknowledgementTimeout", acknowledgementTimeout);
            return this;
        }

        /**
         * An admin client of the same cluster, asked whether a topic exists before the first send to it (and again
         * when the producer found no metadata for it): then a missing topic fails at once as
         * {@link Reason#DESTINATION_NOT_FOUND}, without a send. Optional.
         */
        public Builder topicLookup(@Nullable Admin topicLookup) {
            this.topicLookup = topicLookup;
            return this;
        }

        /**
         * How long what a topic check found (the topic is there, missing, refused) holds for further sends to the
         * topic; a topic created meanwhile is found by the next check. A failed send checks again at once.
         * By default {@link #DEFAULT_TOPIC_CHECK_EXPIRY}.
         */
        public Builder topicCheckExpiry(Duration topicCheckExpiry) {
            this.topicCheckExpiry = Checks.positive("topicCheckExpiry", topicCheckExpiry);
            return this;
        }

        public KafkaOutboxPublisher build() {
            if (router == null) {
                throw new IllegalArgumentException("router is required: where records go (a topic per event type)");
            }
            return new KafkaOutboxPublisher(this);
        }
    }
}
