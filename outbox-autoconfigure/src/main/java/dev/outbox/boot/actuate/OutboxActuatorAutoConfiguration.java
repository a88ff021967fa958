package dev.outbox.boot.actuate;

import dev.outbox.admin.OutboxAdmin;
import dev.outbox.boot.OutboxInstanceIdentity;
import dev.outbox.boot.OutboxProcessingAutoConfiguration;
import dev.outbox.boot.OutboxStoreAutoConfiguration;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.monitoring.OutboxMonitor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The outbox actuator endpoint and health indicator, when the application has the actuator. */
@AutoConfiguration(after = {OutboxStoreAutoConfiguration.class, OutboxProcessingAutoConfiguration.class})
@ConditionalOnBean(OutboxMonitor.class)
public class OutboxActuatorAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    static class EndpointConfiguration {
        @Bean
        @ConditionalOnMissingBean
        OutboxEndpoint outboxEndpoint(OutboxMonitor monitor, ObjectProvider<ClusterCoordinator> coordinator,
                ObjectProvider<OutboxInstanceIdentity> identity, OutboxAdmin admin) {
            ClusterCoordinator cluster = coordinator.getIfAvailable();
            String id = cluster != null ? cluster.instanceId() : identity.getObject().id();
            return new OutboxEndpoint(monitor, cluster, id, admin);
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
    }
}
