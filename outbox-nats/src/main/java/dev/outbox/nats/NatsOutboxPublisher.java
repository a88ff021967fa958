package dev.outbox.nats;

import dev.outbox.OutboxRecord;
import dev.outbox.internal.Checks;
import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.publish.OutboxPublisher;
import dev.outbox.publish.OutboxRouter;
import dev.outbox.publish.PublishException;
import dev.outbox.publish.PublishException.Reason;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.support.NatsJetStreamConstants;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Publishes records to NATS JetStream: one message per record on the subject its router names, the record's payload
 * as data, the {@linkplain OutboxMessageHeaders outbox headers} as NATS headers, and the record id as
 * {@code Nats-Msg-Id}. A record counts as published when the stream's acknowledgement ({@code PublishAck}) arrives.
 *
 * <p><b>Exactly once into the stream, within its duplicate window.</b> JetStream drops a message whose
 * {@code Nats-Msg-Id} it has stored within the stream's {@code duplicate_window} (2 minutes unless the stream says
 * otherwise) and acknowledges it as a duplicate; this publisher reports that as {@link OutboxPublisher#DUPLICATE}. So a
 * record re-sent after a lost acknowledgement, a cut connection or a crash before its completion was stored is stored
 * once, provided the re-send comes within the window. A re-send after the window is stored again, with the same record
 * id in its {@value OutboxMessageHeaders#RECORD_ID} header.
 *
 * <p><b>Sends that would block.</b> {@link #publish} waits only when the connection's outgoing queue is full
 * ({@code Options.maxMessagesInOutgoingQueue}, 5,000 messages by default, shared by every subject: the connection
 * cannot write fast enough), at most the connection's {@code Options.writeQueuePushTimeout} (2 s by default), and
 * then fails as a retryable {@link Reason#CONNECTION}. A stream that does not acknowledge (no quorum, say) holds no
 * thread: the client cancels an unanswered asynchronous publish after the connection's
 * {@code Options.requestCleanupInterval} (5 s by default, noticed within twice that), a {@link Reason#TIMEOUT}, and
 * the engine gives up after the {@linkplain Builder#acknowledgementTimeout acknowledgement timeout} in any case.
 *
 * <p>Errors: a subject no stream listens to is {@link Reason#DESTINATION_NOT_FOUND} (checked against the streams
 * before it is said: while a stream for the subject exists, "no responders" is a retryable
 * {@link Reason#CONNECTION}); a message over the server's {@code max_payload} or the stream's maximum message size is
 * {@link Reason#TOO_LARGE}; a timeout is {@link Reason#TIMEOUT}; a closed or lost connection is
 * {@link Reason#CONNECTION}. A publish the server refuses for lack of permission is {@link Reason#NOT_AUTHORIZED} when
 * the connection has a {@link NatsPermissionViolations} listener (NATS reports permission violations to the
 * connection's error listener, not to the publish), and a timeout otherwise.
 *
 * <p>Immutable and thread-safe; build with {@link #builder(Connection)}. The connection is the application's: this
 * publisher never closes it.
 */
public final class NatsOutboxPublisher implements OutboxPublisher {

    /** The client's own wait for a {@code PublishAck} unless set: below the engine's acknowledgement timeout. */
    public static final Duration DEFAULT_PUBLISH_TIMEOUT = Duration.ofSeconds(10);

    private static final int NO_RESPONDERS = 503;
    private static final int MESSAGE_TOO_LARGE = 10054;
    private static final int WRONG_EXPECTED_STREAM = 10060;

    private final Connection connection;
    private final JetStream jetStream;
    private final OutboxRouter<String> router;
    private final OutboxMessageHeaders headers;
    private final Duration publishTimeout;
    private final Duration acknowledgementTimeout;
    private final @Nullable String expectedStream;
    private final @Nullable NatsPermissionViolations permissionViolations;
    private final Executor streamLookups;

    private NatsOutboxPublisher(Builder builder) {
        this.connection = builder.connection;
        this.router = Objects.requireNonNull(builder.router, "router is required");
        this.headers = builder.headers;
        this.publishTimeout = builder.publishTimeout;
        this.acknowledgementTimeout = builder.acknowledgementTimeout;
        this.expectedStream = builder.expectedStream;
        this.permissionViolations = builder.permissionViolations != null ? builder.permissionViolations
                : connection.getOptions().getErrorListener() instanceof NatsPermissionViolations listener
                        ? listener : null;
        try {
            this.jetStream = connection.jetStream(JetStreamOptions.builder().requestTimeout(publishTimeout).build());
        } catch (IOException e) {
            throw new IllegalStateException("NATS connection has no JetStream context: " + e.getMessage(), e);
        }
        // the stream lookups after "no responders": rare, so the thread ends when idle
        this.streamLookups = new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                runnable -> {
                    Thread thread = new Thread(runnable, "outbox-nats-stream-lookup");
                    thread.setDaemon(true);
                    return thread;
                });
    }

    public static Builder builder(Connection connection) {
        return new Builder(connection);
    }

    @Override
    public CompletionStage<?> publish(OutboxRecord record) {
        String subject = router.destinationFor(record);
        Headers natsHeaders = new Headers();
        headers.of(record).forEach(natsHeaders::put);
        // JetStream's headers set here, not through PublishOptions: the client would copy all headers to add them
        natsHeaders.put(NatsJetStreamConstants.MSG_ID_HDR, record.getId());
        if (expectedStream != null) {
            natsHeaders.put(NatsJetStreamConstants.EXPECTED_STREAM_HDR, expectedStream);
        }
        byte[] data = record.getPayload().getBytes(StandardCharsets.UTF_8);
        long size = (long) data.length + natsHeaders.serializedLength();
        if (size > connection.getMaxPayload()) {
            // checked here: a message over the limit would make the server close the whole connection
            throw new PublishException(Reason.TOO_LARGE, "record " + record.getId() + " to NATS subject '" + subject
                    + "': " + size + " bytes with headers, over the server's max_payload of "
                    + connection.getMaxPayload());
        }
        Publication publication = new Publication(record, subject);
        // watched before the send: the server's refusal may come before publishAsync returns
        if (permissionViolations != null) {
            permissionViolations.watch(publication);
        }
        CompletableFuture<PublishAck> acknowledgement;
        try {
            acknowledgement = jetStream.publishAsync(subject, natsHeaders, data);
        } catch (IllegalArgumentException e) {
            publication.unwatch();
            throw new PublishException(Reason.TOO_LARGE, "record " + record.getId() + " to NATS subject '" + subject
                    + "': " + e.getMessage(), e);
        } catch (IllegalStateException e) {
            publication.unwatch();
            throw new PublishException(Reason.CONNECTION, "record " + record.getId() + " to NATS subject '" + subject
                    + "': connection " + connection.getStatus() + ": " + e.getMessage(), e);
        }
        acknowledgement.whenComplete(publication);
        return publication.outcome;
    }

    @Override
    public Duration acknowledgementTimeout() {
        return acknowledgementTimeout;
    }

    @Override
    public String toString() {
        return "NatsOutboxPublisher{" + router + ", " + headers + ", publishTimeout=" + publishTimeout
                + ", acknowledgementTimeout=" + acknowledgementTimeout
                + (expectedStream == null ? "" : ", expectedStream=" + expectedStream)
                + (permissionViolations == null ? "" : ", permission violations watched") + "}";
    }

    private PublishException translate(OutboxRecord record, String subject, Throwable failure) {
        String what = "record " + record.getId() + " to NATS subject '" + subject + "': ";
        if (failure instanceof JetStreamApiException api) {
            return switch (api.getApiErrorCode()) {
                case MESSAGE_TOO_LARGE -> new PublishException(Reason.TOO_LARGE, what + api.getMessage(), api);
                case WRONG_EXPECTED_STREAM -> new PublishException(Reason.DESTINATION_NOT_FOUND, what
                        + "the subject is not stored by the expected stream '" + expectedStream + "' ("
                        + api.getMessage() + ")", api);
                default -> new PublishException(Reason.REJECTED, what + "refused by JetStream: " + api.getMessage(),
                        api);
            };
        }
        if (failure instanceof NatsPermissionViolations.Refused) {
            return new PublishException(Reason.NOT_AUTHORIZED, what + "refused by the server: " + failure.getMessage(),
                    failure);
        }
        if (failure instanceof IOException && String.valueOf(failure.getMessage()).contains(
                Integer.toString(NO_RESPONDERS))) {
            return new NoStreamSuspected(subject, what + "no stream answered (" + failure.getMessage() + ")",
                    failure);
        }
        if (failure instanceof TimeoutException || failure instanceof CancellationException) {
            return new PublishException(Reason.TIMEOUT, what + "no acknowledgement from JetStream within "
                    + publishTimeout + " (connection " + connection.getStatus() + "); it may have been stored",
                    failure);
        }
        return new PublishException(Reason.CONNECTION, what + "connection " + connection.getStatus() + ": " + failure,
                failure);
    }

    /**
     * "No responders" means no stream took the subject, or none could answer just then (a stream's leader moving, a
     * reconnect): which one, the stream list tells.
     */
    private PublishException confirmMissingStream(NoStreamSuspected suspected) {
        List<String> streams;
        try {
            streams = connection.jetStreamManagement().getStreamNames(suspected.subject);
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            return new PublishException(Reason.CONNECTION, suspected.getMessage()
                    + "; the streams could not be listed: " + e.getMessage(), suspected);
        }
        if (streams.isEmpty()) {
            return new PublishException(Reason.DESTINATION_NOT_FOUND,
                    suspected.getMessage() + ": no JetStream stream stores this subject", suspected);
        }
        return new PublishException(Reason.CONNECTION, suspected.getMessage()
                + "; stream(s) " + streams + " store this subject but did not answer", suspected);
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException
                || cause.getClass() == RuntimeException.class) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /**
     * One record's send: completes its outcome from the stream's acknowledgement or the server's refusal, whichever
     * comes first. One object and one callback per record, not a chain of stages.
     */
    private final class Publication implements BiConsumer<@Nullable PublishAck, @Nullable Throwable>,
            NatsPermissionViolations.Watched {

        final CompletableFuture<Object> outcome = new CompletableFuture<>();
        private final OutboxRecord record;
        private final String subject;

        Publication(OutboxRecord record, String subject) {
            this.record = record;
            this.subject = subject;
        }

        /** The client's verdict, on its callback thread. */
        @Override
        public void accept(@Nullable PublishAck ack, @Nullable Throwable failure) {
            unwatch();
            if (failure == null && ack != null) {
                outcome.complete(ack.isDuplicate() ? DUPLICATE : ack);
            } else {
                fail(translate(record, subject, failure == null ? new IllegalStateException("no PublishAck")
                        : unwrap(failure)));
            }
        }

        @Override
        public String subject() {
            return subject;
        }

        @Override
        public void refused(NatsPermissionViolations.Refused refusal) {
            fail(translate(record, subject, refusal));
        }

        void unwatch() {
            if (permissionViolations != null) {
                permissionViolations.unwatch(this);
            }
        }

        private void fail(PublishException failure) {
            if (failure instanceof NoStreamSuspected suspected) {
                // looking up streams is a request of its own: never made on the client's callback thread
                streamLookups.execute(() -> outcome.completeExceptionally(confirmMissingStream(suspected)));
            } else {
                outcome.completeExceptionally(failure);
            }
        }
    }

    /** A "no responders" answer, until the stream list says whether the subject has a stream. */
    private static final class NoStreamSuspected extends PublishException {

        private final String subject;

        NoStreamSuspected(String subject, String message, Throwable cause) {
            super(Reason.CONNECTION, message, cause);
            this.subject = subject;
        }
    }

    /** Not thread-safe. */
    public static final class Builder {

        private final Connection connection;
        private @Nullable OutboxRouter<String> router;
        private OutboxMessageHeaders headers = OutboxMessageHeaders.defaults();
        private Duration publishTimeout = DEFAULT_PUBLISH_TIMEOUT;
        private Duration acknowledgementTimeout = DEFAULT_ACKNOWLEDGEMENT_TIMEOUT;
        private @Nullable String expectedStream;
        private @Nullable NatsPermissionViolations permissionViolations;

        private Builder(Connection connection) {
            this.connection = Objects.requireNonNull(connection, "connection");
        }

        /**
         * Where each record goes: a subject; see {@link dev.outbox.publish.EventTypeRouting} and
         * {@link NatsSubjectRouter}. Required.
         */
        public Builder router(OutboxRouter<String> router) {
            this.router = Objects.requireNonNull(router, "router");
            return this;
        }

        public Builder headers(OutboxMessageHeaders headers) {
            this.headers = Objects.requireNonNull(headers, "headers");
            return this;
        }

        /** How long the client waits for the stream's {@code PublishAck}; below the acknowledgement timeout. */
        public Builder publishTimeout(Duration publishTimeout) {
            this.publishTimeout = Checks.positive("publishTimeout", publishTimeout);
            return this;
        }

        /** How long the engine waits for an acknowledgement before it counts the attempt as timed out. */
        public Builder acknowledgementTimeout(Duration acknowledgementTimeout) {
            this.acknowledgementTimeout = Checks.positive("acknowledgementTimeout", acknowledgementTimeout);
            return this;
        }

        /** Refuse to publish where another stream than this one would store the message. Optional. */
        public Builder expectedStream(@Nullable String expectedStream) {
            this.expectedStream = expectedStream == null || expectedStream.isBlank() ? null : expectedStream;
            return this;
        }

        /**
         * Where the server's permission violations arrive, so that a publish the server refuses for lack of
         * permission fails as not authorized instead of timing out. By default the connection's error listener when
         * it is a {@link NatsPermissionViolations}; without one such a publish is retried as a timeout.
         */
        public Builder permissionViolations(@Nullable NatsPermissionViolations permissionViolations) {
            this.permissionViolations = permissionViolations;
            return this;
        }

        /**
         * @throws IllegalArgumentException when the publish timeout is not below the acknowledgement timeout: the
         *     client's own verdict must come first
         */
        public NatsOutboxPublisher build() {
            if (router == null) {
                throw new IllegalArgumentException("router is required: where records go (a subject per event type)");
            }
            if (publishTimeout.compareTo(acknowledgementTimeout) >= 0) {
                throw new IllegalArgumentException("publishTimeout must be below acknowledgementTimeout, was "
                        + publishTimeout + " with acknowledgementTimeout " + acknowledgementTimeout);
            }
            return new NatsOutboxPublisher(this);
        }
    }
}
