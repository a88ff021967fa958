package dev.outbox.boot;

import dev.outbox.metrics.MicrometerOutboxListener;
import dev.outbox.metrics.MicrometerOutboxObservation;
import dev.outbox.metrics.MicrometerPartitionListener;
import dev.outbox.metrics.OutboxMetrics;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.spi.PartitionListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** Meters outbox processing when Micrometer and {@code outbox-metrics} are on the classpath. */
@AutoConfiguration(after = OutboxStoreAutoConfiguration.class, before = OutboxProcessingAutoConfiguration.class)
@ConditionalOnClass({MeterRegistry.class, MicrometerOutboxListener.class})
@ConditionalOnBean(DataSource.class)
@ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
public class OutboxMetricsAutoConfiguration {

    /** A no-op when the application has no meter registry (Micrometer on the classpath, but no actuator). */
    @Bean
    OutboxListener outboxMetricsListener(ObjectProvider<MeterRegistry> registry, ObjectProvider<Clock> clock,
            OutboxProperties properties) {
        MeterRegistry meterRegistry = registry.getIfAvailable();
        return meterRegistry == null ? OutboxListener.NOOP : new MicrometerOutboxListener(meterRegistry,
                clock.getIfAvailable(Clock::systemUTC), properties.metrics().maxEventTypes());
    }

    /** A no-op without a meter registry, like the listener above. */
    @Bean
    PartitionListener outboxPartitionMetricsListener(ObjectProvider<MeterRegistry> registry) {
        MeterRegistry meterRegistry = registry.getIfAvailable();
        return meterRegistry == null ? PartitionListener.NOOP : new MicrometerPartitionListener(meterRegistry);
    }

    /**
     * Observations of each record's write and handler calls, so a tracing bridge follows a record from the request
     * that wrote it to its handler; does nothing without an {@code ObservationRegistry}.
     */
    @Bean
    @ConditionalOnMissingBean
    OutboxObservation outboxObservation(ObjectProvider<ObservationRegistry> registry) {
        ObservationRegistry observationRegistry = registry.getIfAvailable();
        return observationRegistry == null ? OutboxObservation.NOOP
                : new MicrometerOutboxObservation(observationRegistry);
    }

    /** Gauges over the monitor's snapshots; Spring Boot binds every MeterBinder bean to the registries. */
    @Bean
    @ConditionalOnMissingBean
    OutboxMetrics outboxMetrics(OutboxMonitor monitor, OutboxProperties properties) {
        return new OutboxMetrics(monitor, properties.metrics().partitionGauges());
    }
}
