package dev.outbox.example.publishing;

import dev.outbox.publish.OutboxMessageHeaders;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamSubscription;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

/**
 * The {@code nats} profile's stream (created at startup when missing; JetStream keeps it) and its consumer: an ordered
 * push consumer of the stream's subjects, on the outbox's own connection, of the messages stored from its start on.
 */
@Component
@Profile("nats")
class NatsConsumer implements DisposableBean {

    private final Dispatcher dispatcher;
    private final JetStreamSubscription subscription;

    NatsConsumer(Connection connection, ReceivedMessages received, @Value("${example.name}") String name)
            throws IOException, JetStreamApiException {
        if (!connection.jetStreamManagement().getStreamNames().contains(name)) {
            connection.jetStreamManagement().addStream(StreamConfiguration.builder().name(name)
                    .subjects(name + ".>").storageType(StorageType.File).build());
        }
        dispatcher = connection.createDispatcher();
        subscription = connection.jetStream().subscribe(name + ".>", dispatcher, message -> received.received(
                new ReceivedMessages.Message(message.getHeaders().getFirst(OutboxMessageHeaders.RECORD_ID),
                        message.getHeaders().getFirst(OutboxMessageHeaders.EVENT_TYPE),
                        message.getHeaders().getFirst(OutboxMessageHeaders.AGGREGATE_ID),
                        Long.parseLong(message.getHeaders().getFirst(OutboxMessageHeaders.SEQUENCE)),
                        new String(message.getData(), StandardCharsets.UTF_8))),
                false, PushSubscribeOptions.builder().ordered(true)
                        // this run's messages only: the stream keeps those of earlier runs
                        .configuration(ConsumerConfiguration.builder().deliverPolicy(DeliverPolicy.New).build())
                        .build());
    }

    @Override
    public void destroy() {
        dispatcher.unsubscribe(subscription);
    }
}
