package dev.outbox.boot.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.jdbc.testing.ReadmeSnippets;
import dev.outbox.jdbc.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * docs/publishing.md's "A publisher of your own" ({@link AuditTrailPublishing}, imports included), run as written in a
 * Spring Boot application on H2: a {@code PublisherRegistration} bean is a handler of its own, takes only its event
 * types, and completes a record only when the stage its publisher returned completes.
 */
class OwnPublisherTest extends DatabasePerTestClass {

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }

    @Test
    void aRegisteredPublisherGetsItsEventTypesInOrderAndCompletesThemOnItsAcknowledgement() {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(AuditTrailApplication.class)
                .web(WebApplicationType.NONE)
                .properties(dataSourceProperties().toArray(String[]::new))
                .properties("spring.main.banner-mode=off", "outbox.schema-initialization.enabled=true",
                        "outbox.poll-interval=100ms")
                .run()) {
            AuditTrailClient auditTrail = app.getBean(AuditTrailClient.class);
            auditTrail.holdAcknowledgements = true;
            Outbox outbox = app.getBean(Outbox.class);
            new TransactionTemplate(app.getBean(PlatformTransactionManager.class))
                    .executeWithoutResult(status -> {
                        for (int n = 1; n <= 3; n++) {
                            outbox.schedule(new OrderEvent("order-1", n), "order-1", "OrderPlaced");
                            outbox.schedule(new OrderEvent("order-2", n), "order-2", "OrderCancelled");
                            outbox.schedule(new OrderEvent("order-3", n), "order-3", "OrderPaid");
                        }
                    });
            OutboxRecordRepository records = app.getBean(OutboxRecordRepository.class);

            await().atMost(DEADLINE).until(() -> auditTrail.appended.size() >= 2);
            assertThat(records.findByAggregateId("order-1")).as("nothing completes before its acknowledgement")
                    .allMatch(record -> record.getStatus() == OutboxRecordStatus.NEW);
            assertThat(auditTrail.appended).as("one in flight per aggregate").hasSize(2);

            auditTrail.release();
            await().atMost(DEADLINE).until(() -> records.findByAggregateId("order-1").stream()
                    .allMatch(record -> record.getStatus() == OutboxRecordStatus.COMPLETED)
                    && records.findByAggregateId("order-2").stream()
                    .allMatch(record -> record.getStatus() == OutboxRecordStatus.COMPLETED));

            assertThat(auditTrail.payloadsOf("order-1")).containsExactly(
                    "{\"order\":\"order-1\",\"n\":1}", "{\"order\":\"order-1\",\"n\":2}",
                    "{\"order\":\"order-1\",\"n\":3}");
            assertThat(auditTrail.payloadsOf("order-2")).hasSize(3);
            assertThat(auditTrail.payloadsOf("order-3")).as("not among its event types").isEmpty();
            assertThat(auditTrail.recordIds).as("each record once").hasSize(6).doesNotHaveDuplicates();
        }
    }

    @Test
    void theSnippetIsTheDocumentations() {
        ReadmeSnippets.assertInDocs(Path.of("src/test/java/dev/outbox/boot/publish/AuditTrailPublishing.java"),
                "a publisher of your own");
    }

    /** The application: the documented configuration, and a client of the test's own for its destination. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(AuditTrailPublishing.class)
    static class AuditTrailApplication {

        @Bean
        AuditTrailClient auditTrailClient() {
            return new AuditTrailClient();
        }
    }

    record OrderEvent(String order, int n) {
    }

    /** An asynchronous destination whose acknowledgements the test can hold back. */
    static class AuditTrailClient implements AuditTrailPublishing.AuditTrailClient {

        final List<String> recordIds = new CopyOnWriteArrayList<>();
        final List<String> appended = new CopyOnWriteArrayList<>();
        private final List<CompletableFuture<Void>> held = new CopyOnWriteArrayList<>();
        volatile boolean holdAcknowledgements;

        @Override
        public CompletionStage<Void> append(String recordId, String payload) {
            recordIds.add(recordId);
            appended.add(payload);
            CompletableFuture<Void> acknowledgement = new CompletableFuture<>();
            if (holdAcknowledgements) {
                held.add(acknowledgement);
            } else {
                acknowledgement.complete(null);
            }
            return acknowledgement;
        }

        void release() {
            holdAcknowledgements = false;
            held.forEach(acknowledgement -> acknowledgement.complete(null));
        }

        List<String> payloadsOf(String order) {
            return appended.stream().filter(payload -> payload.contains("\"" + order + "\"")).toList();
        }
    }
}
