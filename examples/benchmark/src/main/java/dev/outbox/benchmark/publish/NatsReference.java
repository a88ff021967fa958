package dev.outbox.benchmark.publish;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamOptions;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * NATS's own client (jnats) publishing as {@code outbox-nats} does: JetStream {@code publishAsync} with the record id
 * as {@code Nats-Msg-Id}, the expected stream, the outbox headers as NATS headers, a 10 s request timeout, to a
 * file-backed stream like {@link NatsTarget}'s, made for the run and deleted after it. A duplicate acknowledgement
 * (the message was not stored again) fails the run.
 */
final class NatsReference implements PlainClientReference {

    private final String url;

    NatsReference(String url) {
        this.url = url;
    }

    @Override
    public ReferenceRun run(List<ReferenceMessage> warmup, List<ReferenceMessage> measured, int window) {
        String stream = "OUTBOX_BENCH_REF_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12)
                .toUpperCase(Locale.ROOT);
        try (Connection connection = Nats.connect(Options.builder().server(url)
                .connectionName("outbox-bench-reference").dontForceFlushOnRequest().build())) {
            connection.jetStreamManagement().addStream(StreamConfiguration.builder().name(stream)
                    .subjects(stream + ".>").storageType(StorageType.File).build());
            try {
                JetStream jetStream = connection.jetStream(JetStreamOptions.builder()
                        .requestTimeout(Duration.ofSeconds(10)).build());
                publish(jetStream, stream, warmup, window);
                return publish(jetStream, stream, measured, window);
            } finally {
                connection.jetStreamManagement().deleteStream(stream);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (Exception e) {
            throw new IllegalStateException("NATS reference on stream " + stream + " at " + url + ": " + e, e);
        }
    }

    private static ReferenceRun publish(JetStream jetStream, String stream, List<ReferenceMessage> messages,
            int window) throws InterruptedException {
        AckWindow inFlight = new AckWindow(window, messages.size());
        for (ReferenceMessage message : messages) {
            Headers headers = new Headers();
            message.headers().forEach(headers::put);
            inFlight.take();
            jetStream.publishAsync(NatsMessage.builder().subject(stream + ".orders").headers(headers)
                    .data(message.body()).build(), PublishOptions.builder().messageId(message.recordId())
                    .expectedStream(stream).build()).whenComplete((ack, failure) -> {
                        if (failure != null) {
                            inFlight.failed(String.valueOf(failure));
                        } else if (ack.isDuplicate()) {
                            inFlight.failed("duplicate acknowledgement for " + message.recordId());
                        } else {
                            inFlight.acknowledged(1);
                        }
                    });
        }
        return inFlight.await("JetStream publishAsync, Nats-Msg-Id = record id, expected stream, file storage, "
                + "request timeout 10 s");
    }
}
