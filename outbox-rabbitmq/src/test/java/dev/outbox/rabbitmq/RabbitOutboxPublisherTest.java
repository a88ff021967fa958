package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.publish.EventTypeRouting;
import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.publish.PublishException;
import dev.outbox.publish.PublishException.Reason;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.testkit.DeliveryCheck;
import dev.outbox.testkit.PublishingRig;
import com.rabbitmq.client.BlockedListener;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;

/** The RabbitMQ publisher in the real engine against a real RabbitMQ server. */
class RabbitOutboxPublisherTest extends RabbitPublisherFixture {

    /**
     * The headers the README documents for every broker (CloudEvents on; no trace context is stored with these
     * records), and the writer's own: a message carrying any other header fails the exact-set check.
     */
    static final List<String> DOCUMENTED_HEADERS = List.of(OutboxMessageHeaders.RECORD_ID,
            OutboxMessageHeaders.EVENT_TYPE, OutboxMessageHeaders.AGGREGATE_ID, OutboxMessageHeaders.SEQUENCE,
            OutboxMessageHeaders.PARTITION, OutboxMessageHeaders.EPOCH, OutboxMessageHeaders.CREATED_AT,
            OutboxMessageHeaders.CONTENT_TYPE, "ce_specversion", "ce_id", "ce_type", "ce_source", "ce_subject",
            "ce_time", PublishingRig.TENANT_HEADER);

    private static final Duration DEADLINE = Duration.ofSeconds(120);

    @Test
    void tenThousandRecordsOfAThousandAggregatesArriveOnceInOrderWithTheirHeaders() {
        String exchange = broker.declareExchange("roundtrip");
        String queue = broker.declareQueue(exchange, "order.*");
        RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(connection)
                .router(EventTypeRouting.<RabbitDestination>builder("RabbitMQ destination")
                        .route("OrderPlaced", RabbitDestination.of(exchange, "order.placed")).build())
                .headers(OutboxMessageHeaders.builder().cloudEvents("/orders").build())
                .build();
        List<OutboxRecord> written;
        try (PublishingRig rig = PublishingRig.start("rabbitmq", publisher, OutboxRetryPolicy.defaults())) {
            written = rig.write(1_000, 10, "OrderPlaced");
            rig.awaitAllCompleted(DEADLINE);
            assertThat(rig.published()).isEqualTo(10_000);
            assertThat(rig.failuresByReason()).isEmpty();
            written = written.stream().map(rig::stored).toList();
        }

        List<Message> messages = broker.takeAll(queue);
        DeliveryCheck check = DeliveryCheck.of(written, messages.stream().map(RabbitTestBroker::consumed).toList());
        assertThat(check.missing()).as("%s", check).isEmpty();
        assertThat(check.unknown()).isEmpty();
        assertThat(check.copies()).isZero();
        assertThat(check.orderViolations()).isEmpty();

        Map<String, OutboxRecord> byId = written.stream()
                .collect(Collectors.toMap(OutboxRecord::getId, Function.identity()));
        assertThat(messages).hasSize(10_000).allSatisfy(message -> {
            MessageProperties properties = message.getMessageProperties();
            OutboxRecord record = byId.get(properties.getMessageId());
            assertThat(properties.getReceivedRoutingKey()).isEqualTo("order.placed");
            assertThat(new String(message.getBody(), StandardCharsets.UTF_8)).isEqualTo(record.getPayload());
            assertThat(properties.getType()).isEqualTo("OrderPlaced");
            assertThat(properties.getContentType()).isEqualTo("application/json");
            assertThat(properties.getReceivedDeliveryMode()).isEqualTo(MessageDeliveryMode.PERSISTENT);
            Map<String, Object> headers = properties.getHeaders();
            assertThat(headers).containsEntry(OutboxMessageHeaders.RECORD_ID, record.getId())
                    .containsEntry(OutboxMessageHeaders.EVENT_TYPE, "OrderPlaced")
                    .containsEntry(OutboxMessageHeaders.AGGREGATE_ID, record.getAggregateId())
                    .containsEntry(OutboxMessageHeaders.PARTITION, Integer.toString(record.getPartition()))
                    .containsEntry(OutboxMessageHeaders.EPOCH, "0")
                    .containsEntry(OutboxMessageHeaders.CREATED_AT, record.getCreatedAt().toString())
                    .containsEntry("ce_id", record.getId())
                    .containsEntry("ce_source", "/orders")
                    .containsEntry("ce_subject", record.getAggregateId())
                    .containsEntry(PublishingRig.TENANT_HEADER, PublishingRig.tenantOf(record.getAggregateId()));
            // a returned message is matched to its send by its message-id: no header of the publisher's own
            assertThat(headers.keySet()).as("the documented headers only")
                    .containsExactlyInAnyOrderElementsOf(DOCUMENTED_HEADERS);
            assertThat(properties.getMessageId()).isEqualTo(record.getId());
            assertThat(properties.getContentEncoding()).isEqualTo("UTF-8");
            assertThat(properties.getTimestamp().toInstant()).as("AMQP timestamps are whole seconds")
                    .isEqualTo(record.getCreatedAt().truncatedTo(ChronoUnit.SECONDS));
        });
    }

    @Test
    void whatCanNeverBePublishedFailsAtOnceNamingTheDestinationAndTheCauseWhileOtherAggregatesFlow() {
        String exchange = broker.declareExchange("errors");
        String queue = broker.declareQueue(exchange, "order.placed");
        String missingExchange = RabbitTestBroker.unique("missing");
        RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(connection)
                .router(EventTypeRouting.<RabbitDestination>builder("RabbitMQ destination")
                        .route("OrderPlaced", RabbitDestination.of(exchange, "order.placed"))
                        .route("Unbound", RabbitDestination.of(exchange, "nobody.listens"))
                        .route("NoExchange", RabbitDestination.byEventType(missingExchange))
                        .build())
                .build();
        try (PublishingRig rig = PublishingRig.start("rabbitmq", publisher,
                OutboxRetryPolicy.fixed(Duration.ofMillis(200)).withMaxRetries(5))) {
            OutboxRecord noExchange = rig.write("no-exchange", "NoExchange", "{}");
            OutboxRecord unroutable = rig.write("unroutable", "Unbound", "{}");
            OutboxRecord noRoute = rig.write("no-route", "OrderCancelled", "{}");
            List<OutboxRecord> fine = rig.write(20, 5, "OrderPlaced");

            OutboxRecord failed = rig.awaitSettled(noExchange, DEADLINE);
            assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
            // the exchange's own channel: the broker's 404 fails the record at once, never as an unknown outcome
            assertThat(failed.getRetryCount()).isZero();
            assertThat(failed.getLastError()).contains("exchange '" + missingExchange + "'")
                    .contains("routing key 'NoExchange'").contains("NOT_FOUND - no exchange");

            failed = rig.awaitSettled(unroutable, DEADLINE);
            assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
            assertThat(failed.getRetryCount()).isZero();
            assertThat(failed.getLastError()).contains("exchange '" + exchange + "'")
                    .contains("returned by the broker, 312 NO_ROUTE: no queue is bound for the routing key");

            failed = rig.awaitSettled(noRoute, DEADLINE);
            assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
            assertThat(failed.getLastError()).contains("no RabbitMQ destination for event type 'OrderCancelled'");

            assertThat(fine).allSatisfy(record -> assertThat(rig.awaitSettled(record, DEADLINE).getStatus())
                    .isEqualTo(OutboxRecordStatus.COMPLETED));
            assertThat(rig.failuresByReason()).containsEntry(Reason.DESTINATION_NOT_FOUND, 1L)
                    .containsEntry(Reason.UNROUTABLE, 1L).containsEntry(Reason.NO_DESTINATION, 1L);
            assertThat(rig.failuresByReason()).as("no other cause: the missing exchange's channel is its own")
                    .containsOnlyKeys(Reason.DESTINATION_NOT_FOUND, Reason.UNROUTABLE, Reason.NO_DESTINATION);
        }
        assertThat(broker.takeAll(queue)).hasSize(100);
    }

    @Test
    void anExchangeTheUserMayNotWriteToFailsAtOnceAsNotAuthorizedWhileOtherExchangesFlow() {
        String allowed = broker.declareExchange("allowed");
        String allowedQueue = broker.declareQueue(allowed, "#");
        String denied = broker.declareExchange("denied");
        String deniedQueue = broker.declareQueue(denied, "#");
        CachingConnectionFactory restricted = broker.publisherConnectionWritingOnlyTo(allowed);
        List<OutboxRecord> fine;
        try {
            RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(restricted)
                    .router(EventTypeRouting.<RabbitDestination>builder("RabbitMQ destination")
                            .route("OrderPlaced", RabbitDestination.of(allowed, "order.placed"))
                            .route("PaymentTaken", RabbitDestination.of(denied, "payment.taken"))
                            .build())
                    .build();
            try (PublishingRig rig = PublishingRig.start("rabbitmq", publisher,
                    OutboxRetryPolicy.fixed(Duration.ofMillis(200)).withMaxRetries(5))) {
                OutboxRecord refused = rig.write("payment-1", "PaymentTaken", "{}");
                fine = rig.write(20, 5, "OrderPlaced");

                OutboxRecord failed = rig.awaitSettled(refused, DEADLINE);
                assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
                assertThat(failed.getRetryCount()).isZero();
                assertThat(failed.getLastError()).contains("exchange '" + denied + "'").contains("ACCESS_REFUSED");
                assertThat(fine).allSatisfy(record -> assertThat(rig.awaitSettled(record, DEADLINE).getStatus())
                        .isEqualTo(OutboxRecordStatus.COMPLETED));
                assertThat(rig.failuresByReason()).containsEntry(Reason.NOT_AUTHORIZED, 1L);
                assertThat(rig.failuresByReason()).as("no other cause: the refused exchange's channel is its own")
                        .containsOnlyKeys(Reason.NOT_AUTHORIZED);
                fine = fine.stream().map(rig::stored).toList();
            }
        } finally {
            restricted.destroy();
        }
        DeliveryCheck check = DeliveryCheck.of(fine,
                broker.takeAll(allowedQueue).stream().map(RabbitTestBroker::consumed).toList());
        assertThat(check.missing()).as("%s", check).isEmpty();
        assertThat(check.unknown()).isEmpty();
        assertThat(check.orderViolations()).isEmpty();
        assertThat(broker.takeAll(deniedQueue)).isEmpty();
    }

    @Test
    void aMessageOverTheGivenMaxMessageSizeFailsWithoutBeingSent() {
        String exchange = broker.declareExchange("size");
        String queue = broker.declareQueue(exchange, "#");
        RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(connection)
                .router(record -> RabbitDestination.of(exchange, "order"))
                .maxMessageSize(1_024)
                .build();
        OutboxRecord atLimit;
        try (PublishingRig rig = PublishingRig.start("rabbitmq", publisher,
                OutboxRetryPolicy.fixed(Duration.ofMillis(200)).withMaxRetries(5))) {
            OutboxRecord large = rig.write("large", "OrderPlaced", "{\"text\":\"" + "x".repeat(1_100) + "\"}");
            atLimit = rig.write("at-limit", "OrderPlaced", "x".repeat(1_024));

            OutboxRecord failed = rig.awaitSettled(large, DEADLINE);
            assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
            assertThat(failed.getRetryCount()).isZero();
            assertThat(failed.getLastError()).contains("exchange '" + exchange + "'")
                    .contains("1111 bytes, over the broker's max_message_size of 1024 bytes");
            assertThat(rig.awaitSettled(atLimit, DEADLINE).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
            assertThat(rig.failuresByReason()).containsOnly(Map.entry(Reason.TOO_LARGE, 1L));
        }
        assertThat(broker.takeAll(queue)).as("only the message at the limit")
                .map(message -> message.getMessageProperties().getMessageId()).containsExactly(atLimit.getId());
    }

    @Test
    void whileTheBrokerBlocksTheConnectionARecordFailsAtOnceWithoutASendThatWouldHang() throws Exception { // issue 29
        String exchange = broker.declareExchange("blocked");
        String queue = broker.declareQueue(exchange, "#");
        CachingConnectionFactory own = broker.publisherConnection();
        OutboxRecord record = OutboxRecord.builder().aggregateId("blocked").eventType("OrderPlaced").payload("{}")
                .build(Clock.systemUTC());
        try {
            RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(own)
                    .router(any -> RabbitDestination.of(exchange, "order")).build();
            Collection<BlockedListener> listeners = blockedListeners(own.createConnection().getDelegate());

            // what the client does on the broker's connection.blocked, sent when it is short of memory or disk
            for (BlockedListener listener : listeners) {
                listener.handleBlocked("low on memory");
            }
            assertThatThrownBy(() -> publisher.publish(record)).isInstanceOfSatisfying(PublishException.class,
                    refused -> {
                        assertThat(refused.reason()).isEqualTo(Reason.REJECTED);
                        assertThat(refused.getMessage()).contains("exchange '" + exchange + "'")
                                .contains("not sent: the broker blocked the connection (low on memory)");
                    });

            for (BlockedListener listener : listeners) {
                listener.handleUnblocked();
            }
            CompletableFuture<?> confirmed = publisher.publish(record).toCompletableFuture();
            publisher.flush();
            confirmed.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        } finally {
            own.destroy();
        }
        assertThat(broker.takeAll(queue)).map(message -> message.getMessageProperties().getMessageId())
                .containsExactly(record.getId());
    }

    /** The blocked listeners of a client connection: the client offers no way to fire them but the broker's. */
    @SuppressWarnings("unchecked")
    private static Collection<BlockedListener> blockedListeners(com.rabbitmq.client.Connection connection)
            throws ReflectiveOperationException {
        for (Class<?> type = connection.getClass(); type != null; type = type.getSuperclass()) {
            try {
                Field field = type.getDeclaredField("blockedListeners");
                field.setAccessible(true);
                Collection<BlockedListener> listeners = (Collection<BlockedListener>) field.get(connection);
                assertThat(listeners).as("the publisher listens").isNotEmpty();
                return listeners;
            } catch (NoSuchFieldException e) {
                // look in the superclass
            }
        }
        throw new AssertionError("no blocked listeners in " + connection.getClass());
    }

    @Test
    void aNegativeAcknowledgementIsRetriedAndTheAggregateKeepsItsOrder() {
        String exchange = broker.declareExchange("nack");
        // a queue that holds two messages and refuses more: the broker nacks the rest
        String queue = broker.declareQueue(exchange, "#", Map.of("x-max-length", 2, "x-overflow", "reject-publish"));
        RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(connection)
                .router(record -> RabbitDestination.of(exchange, "order"))
                .build();
        try (PublishingRig rig = PublishingRig.start("rabbitmq", publisher,
                OutboxRetryPolicy.fixed(Duration.ofMillis(100)).withMaxRetries(1_000))) {
            List<OutboxRecord> written = rig.write(1, 6, "OrderPlaced");
            await().dontCatchUncaughtExceptions().atMost(DEADLINE).until(() -> rig.failures(Reason.REJECTED) >= 3);
            assertThat(rig.count(OutboxRecordStatus.COMPLETED)).as("the queue holds two").isEqualTo(2);

            List<Message> consumed = new ArrayList<>();
            await().dontCatchUncaughtExceptions().atMost(DEADLINE).until(() -> {
                for (Message message = broker.take(queue); message != null; message = broker.take(queue)) {
                    consumed.add(message);
                }
                return rig.count(OutboxRecordStatus.COMPLETED) == 6 && consumed.size() == 6;
            });
            DeliveryCheck check = DeliveryCheck.of(written.stream().map(rig::stored).toList(),
                    consumed.stream().map(RabbitTestBroker::consumed).toList());
            assertThat(check.missing()).as("%s", check).isEmpty();
            assertThat(check.copies()).isZero();
            assertThat(check.orderViolations()).isEmpty();
            assertThat(rig.failuresByReason()).containsOnlyKeys(Reason.REJECTED);
            assertThat(rig.count(OutboxRecordStatus.FAILED)).isZero();
        }
    }

    @Test
    void aRefusalCountsAsTheRecordsOnlyWhenItNamesItsExchangeOrALimitItIsOver() {
        // the texts RabbitMQ closes a channel with, among them a 406 that no test here can provoke: the outbox's
        // payload limit is far below the broker's default maximum (128 MiB), which is the same for every vhost
        String accessRefused = "channel error; protocol method: #method<channel.close>(reply-code=403, reply-text="
                + "ACCESS_REFUSED - write access to exchange 'orders' in vhost '/' refused for user 'app', "
                + "class-id=60, method-id=40)";
        PublishException refused = RabbitOutboxPublisher.translate("record r1 to RabbitMQ exchange 'orders': ",
                "orders", 10, accessRefused, null);
        assertThat(refused.reason()).isEqualTo(Reason.NOT_AUTHORIZED);
        assertThat(refused.isRetryable()).isFalse();
        assertThat(refused.getMessage()).startsWith("record r1 to RabbitMQ exchange 'orders': ")
                .contains("ACCESS_REFUSED");
        assertThat(RabbitOutboxPublisher.translate("record r2: ", "payments", 10, accessRefused, null).reason())
                .as("another exchange's refusal on a shared channel").isEqualTo(Reason.CONNECTION);

        String notFound = "channel error; protocol method: #method<channel.close>(reply-code=404, reply-text="
                + "NOT_FOUND - no exchange 'orders' in vhost '/', class-id=60, method-id=40)";
        assertThat(RabbitOutboxPublisher.translate("record r3: ", "orders", 10, notFound, null).reason())
                .isEqualTo(Reason.DESTINATION_NOT_FOUND);
        assertThat(RabbitOutboxPublisher.translate("record r4: ", "payments", 10, notFound, null).reason())
                .isEqualTo(Reason.CONNECTION);

        String tooLarge = "channel error; protocol method: #method<channel.close>(reply-code=406, reply-text="
                + "PRECONDITION_FAILED - message size 2048 is larger than configured max size 1024, "
                + "class-id=60, method-id=40)";
        PublishException overLimit = RabbitOutboxPublisher.translate("record r5: ", "orders", 2048, tooLarge, null);
        assertThat(overLimit.reason()).isEqualTo(Reason.TOO_LARGE);
        assertThat(overLimit.isRetryable()).isFalse();
        assertThat(RabbitOutboxPublisher.translate("record r6: ", "orders", 100, tooLarge, null).reason())
                .as("a small message on the channel another one was too large for").isEqualTo(Reason.CONNECTION);

        assertThat(RabbitOutboxPublisher.translate("record r7: ", "orders", 10, "Connection refused", null)
                .reason()).isEqualTo(Reason.CONNECTION);
    }

    @Test
    void anyConnectionFactoryWillDoItsOwnConfirmsAndReturnsAreNotUsed() throws Exception {
        String exchange = broker.declareExchange("factory");
        String queue = broker.declareQueue(exchange, "#");
        // the factory of an application that sends with RabbitTemplate too: the publisher's channels are not its
        CachingConnectionFactory correlated = broker.publisherConnection();
        correlated.setPublisherConfirmType(CachingConnectionFactory.ConfirmType.CORRELATED);
        correlated.setPublisherReturns(true);
        try (RabbitOutboxPublisher publisher = RabbitOutboxPublisher.builder(correlated)
                .router(record -> RabbitDestination.of(exchange, "order")).build()) {
            OutboxRecord record = OutboxRecord.builder().aggregateId("a").eventType("OrderPlaced").payload("{}")
                    .build(Clock.systemUTC());
            CompletableFuture<?> confirmed = publisher.publish(record).toCompletableFuture();
            publisher.flush();
            confirmed.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        } finally {
            correlated.destroy();
        }
        assertThat(broker.takeAll(queue)).hasSize(1);
    }

    @Test
    void theBuilderChecksItsOwnSettings() {
        assertThatThrownBy(() -> RabbitOutboxPublisher.builder(connection).build())
                .hasMessageStartingWith("router is required");
        assertThatThrownBy(() -> RabbitOutboxPublisher.builder(connection).acknowledgementTimeout(Duration.ZERO))
                .hasMessage("acknowledgementTimeout must be positive but was PT0S");
        assertThatThrownBy(() -> RabbitOutboxPublisher.builder(connection).maxMessageSize(0))
                .hasMessage("maxMessageSize must be at least 1 but was 0");
    }
}
