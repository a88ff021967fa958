package dev.outbox.nats;

import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.testkit.DeliveryCheck.Consumed;
import dev.outbox.testkit.TestBrokers;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The NATS server of a test class, found as the database tests find theirs (see {@link TestBrokers}), and the streams
 * it creates, each with a unique name, deleted by {@link #close()}.
 */
final class NatsTestServer implements AutoCloseable {

    private final String url;
    private final Connection admin;
    private final List<String> streams = new ArrayList<>();

    private NatsTestServer(String url) {
        this.url = url;
        this.admin = connect(url);
    }

    static NatsTestServer require() {
        return new NatsTestServer(TestBrokers.require("NATS", "nats://127.0.0.1:4222"));
    }

    String host() {
        return URI.create(url).getHost();
    }

    int port() {
        return URI.create(url).getPort();
    }

    /** A connection that reconnects for ever, every 250 ms: a cut must not end it. */
    static Connection connect(String url) {
        try {
            return Nats.connect(new Options.Builder().server(url).connectionName("outbox-nats-test")
                    .maxReconnects(-1).reconnectWait(Duration.ofMillis(250))
                    .connectionTimeout(Duration.ofSeconds(5)).build());
        } catch (IOException e) {
            throw new IllegalStateException("cannot connect to NATS at " + url, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting to NATS at " + url, e);
        }
    }

    Connection connect() {
        return connect(url);
    }

    /** A stream named {@code prefix_<unique>} storing the subjects {@code <name>.>}; returns its name. */
    String createStream(String prefix, int maxMessageSize) {
        String name = prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try {
            management().addStream(StreamConfiguration.builder().name(name).subjects(name + ".>")
                    .storageType(StorageType.File).maximumMessageSize(maxMessageSize).build());
        } catch (IOException | JetStreamApiException e) {
            throw new IllegalStateException("cannot create stream " + name, e);
        }
        streams.add(name);
        return name;
    }

    long messageCount(String stream) {
        try {
            return management().getStreamInfo(stream).getStreamState().getMsgCount();
        } catch (IOException | JetStreamApiException e) {
            throw new IllegalStateException("cannot read stream " + stream, e);
        }
    }

    /** Every message of the stream, in stream order. */
    List<MessageInfo> readAll(String stream) {
        long count = messageCount(stream);
        List<MessageInfo> messages = new ArrayList<>((int) count);
        try {
            JetStreamManagement management = management();
            for (long sequence = 1; sequence <= count; sequence++) {
                messages.add(management.getMessage(stream, sequence));
            }
        } catch (IOException | JetStreamApiException e) {
            throw new IllegalStateException("cannot read stream " + stream, e);
        }
        return messages;
    }

    static Consumed consumed(MessageInfo message) {
        return new Consumed(message.getHeaders().getFirst(OutboxMessageHeaders.RECORD_ID),
                message.getHeaders().getFirst(OutboxMessageHeaders.AGGREGATE_ID),
                Long.parseLong(message.getHeaders().getFirst(OutboxMessageHeaders.SEQUENCE)));
    }

    private JetStreamManagement management() throws IOException {
        return admin.jetStreamManagement();
    }

    @Override
    public void close() throws Exception {
        try {
            for (String stream : streams) {
                management().deleteStream(stream);
            }
        } finally {
            admin.close();
        }
    }
}
