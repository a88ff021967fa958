package dev.outbox.boot.publish;

// README: a publisher of your own
import dev.outbox.publish.OutboxPublisher;
import dev.outbox.publish.PublisherRegistration;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class AuditTrailPublishing {

    /** The destination's own client: the stage completes once the audit trail has stored the entry durably. */
    interface AuditTrailClient {
        CompletionStage<Void> append(String entryId, String payload);
    }

    @Bean
    PublisherRegistration auditTrailPublisher(AuditTrailClient auditTrail) {
        OutboxPublisher publisher = record -> auditTrail.append(record.getId(), record.getPayload());
        return PublisherRegistration.builder("audit-trail", publisher)
                .eventTypes(Set.of("OrderPlaced", "OrderCancelled"))
                .build();
    }
}
// README: end
