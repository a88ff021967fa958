package dev.outbox.boot.actuate;

import dev.outbox.admin.OutboxAdmin;
import dev.outbox.boot.NamedOutbox;
import dev.outbox.boot.NamedOutboxes;
import dev.outbox.boot.NamedOutboxesAutoConfiguration;
import dev.outbox.boot.OutboxInstanceIdentity;
import dev.outbox.boot.OutboxProcessingAutoConfiguration;
import dev.outbox.boot.OutboxStoreAutoConfiguration;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.monitoring.OutboxMonitor;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The outbox actuator endpoints and health indicators, when the application has the actuator: {@code outbox} for the
 * outbox of {@code outbox.*}, {@code outboxes} for those of {@code outbox.outboxes} when there are any.
 */
@AutoConfiguration(after = {OutboxStoreAutoConfiguration.class, OutboxProcessingAutoConfiguration.class,
        NamedOutboxesAutoConfiguration.class})
@ConditionalOnBean(OutboxMonitor.class)
public class OutboxActuatorAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    static class EndpointConfiguration {
        @Bean
        @ConditionalOnMissingBean
        OutboxEndpoint outboxEndpoint(OutboxMonitor monitor, ObjectProvider<ClusterCoordinator> coordinator,
                ObjectProvider<OutboxInstanceIdentity> identity, OutboxAdmin admin, Clock clock) {
            ClusterCoordinator cluster = coordinator.getIfAvailable();
            String id = cluster != null ? cluster.instanceId() : identity.getObject().id();
            return new OutboxEndpoint(monitor, cluster, id, admin, clock);
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(NamedOutboxes.class)
        @Conditional(OnNamedOutboxesCondition.class)
        NamedOutboxesEndpoint namedOutboxesEndpoint(NamedOutboxes outboxes, OutboxInstanceIdentity identity,
                Clock clock) {
            return new NamedOutboxesEndpoint(outboxes, identity.id(), clock);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static class HealthConfiguration {
        @Bean
        @ConditionalOnMissingBean(name = "outboxHealthIndicator")
        OutboxHealthIndicator outboxHealthIndicator(OutboxMonitor monitor,
                ObjectProvider<ClusterCoordinator> coordinator) {
            return new OutboxHealthIndicator(monitor, coordinator.getIfAvailable());
        }

        /** {@code outboxes}: one indicator per outbox of {@code outbox.outboxes}, as {@code outbox} is for its own. */
        @Bean
        @ConditionalOnMissingBean(name = "outboxesHealthContributor")
        @ConditionalOnBean(NamedOutboxes.class)
        @Conditional(OnNamedOutboxesCondition.class)
        CompositeHealthContributor outboxesHealthContributor(NamedOutboxes outboxes) {
            Map<String, HealthIndicator> indicators = new LinkedHashMap<>();
            for (NamedOutbox outbox : outboxes.all()) {
                indicators.put(outbox.name(), new OutboxHealthIndicator(outbox.monitor(),
                        outbox.coordinator().orElse(null)));
            }
            return CompositeHealthContributor.fromMap(indicators);
        }
    }
}
