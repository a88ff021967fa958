package dev.outbox.benchmark.publish;

import dev.outbox.publish.OutboxMessageHeaders;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/** The NATS server at {@code url}: a file-backed JetStream stream named for this run. */
public final class NatsTarget implements BenchTarget {

    private final String url;
    private final Connection connection;
    private final String stream;

    public NatsTarget(String url) {
        this.url = url;
        this.stream = "OUTBOX_BENCH_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12)
                .toUpperCase(Locale.ROOT);
        try {
            this.connection = Nats.connect(url);
            connection.jetStreamManagement().addStream(StreamConfiguration.builder().name(stream)
                    .subjects(stream + ".>").storageType(StorageType.File).build());
        } catch (Exception e) {
            throw new IllegalStateException("cannot create stream " + stream + " at " + url + ": " + e, e);
        }
    }

    @Override
    public String name() {
        return "nats";
    }

    @Override
    public List<String> properties() {
        return List.of("outbox.nats.enabled=true", "outbox.nats.url=" + url,
                "outbox.nats.default-subject=" + stream + ".orders", "outbox.nats.expected-stream=" + stream);
    }

    @Override
    public PlainClientReference plainClientReference() {
        return new NatsReference(url);
    }

    @Override
    public List<Delivered> readBack(long expected) {
        try {
            JetStreamManagement management = connection.jetStreamManagement();
            long count = management.getStreamInfo(stream).getStreamState().getMsgCount();
            List<Delivered> delivered = new ArrayList<>((int) count);
            for (long sequence = 1; sequence <= count; sequence++) {
                MessageInfo message = management.getMessage(stream, sequence);
                delivered.add(new Delivered(message.getHeaders().getFirst(OutboxMessageHeaders.RECORD_ID),
                        message.getHeaders().getFirst(OutboxMessageHeaders.AGGREGATE_ID),
                        Long.parseLong(message.getHeaders().getFirst(OutboxMessageHeaders.SEQUENCE))));
            }
            return delivered;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read stream " + stream + ": " + e, e);
        }
    }

    @Override
    public void close() {
        try {
            connection.jetStreamManagement().deleteStream(stream);
            connection.close();
        } catch (Exception e) {
            throw new IllegalStateException("cannot delete stream " + stream + ": " + e, e);
        }
    }
}
