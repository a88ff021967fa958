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
import io.micrometer.core.instrument.Tags;
import io.micrometer.observation.ObservationRegistry;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Meters outbox processing when Micrometer and {@code outbox-metrics} are on the classpath. Every meter is tagged
 * {@code outbox=default}, or the name of a further outbox ({@code outbox.outboxes.<name>}).
 */
@AutoConfiguration(after = OutboxStoreAutoConfiguration.class, before = OutboxProcessingAutoConfiguration.class)
@ConditionalOnClass({MeterRegistry.class, MicrometerOutboxListener.class})
@ConditionalOnBean(DataSource.class)
@ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
public class OutboxMetricsAutoConfiguration {

    /** The meters of every outbox; without a meter registry (Micrometer, but no actuator) they count nothing. */
    @Bean
    OutboxMeters outboxMeters(ObjectProvider<MeterRegistry> registry, ObjectProvider<Clock> clock,
            OutboxProperties properties) {
        return new MicrometerOutboxMeters(registry.getIfAvailable(), clock.getIfAvailable(Clock::systemUTC),
                properties.metrics());
    }

    @Bean
    OutboxListener outboxMetricsListener(OutboxMeters meters) {
        return meters.listener(OutboxProperties.Named.DEFAULT_NAME);
    }

    @Bean
    PartitionListener outboxPartitionMetricsListener(OutboxMeters meters) {
        return meters.partitionListener(OutboxProperties.Named.DEFAULT_NAME);
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
        return new OutboxMetrics(monitor, properties.metrics().partitionGauges(),
                tags(OutboxProperties.Named.DEFAULT_NAME));
    }

    private static Tags tags(String outbox) {
        return Tags.of("outbox", outbox);
    }

    /** The Micrometer meters of each outbox, made once per name. */
    private static final class MicrometerOutboxMeters implements OutboxMeters {

        private final @Nullable MeterRegistry registry;
        private final Clock clock;
        private final OutboxProperties.Metrics settings;
        private final Map<String, OutboxListener> listeners = new ConcurrentHashMap<>();
        private final Map<String, PartitionListener> partitionListeners = new ConcurrentHashMap<>();

        MicrometerOutboxMeters(@Nullable MeterRegistry registry, Clock clock, OutboxProperties.Metrics settings) {
            this.registry = registry;
            this.clock = clock;
            this.settings = settings;
        }

        @Override
        public OutboxListener listener(String outbox) {
            return listeners.computeIfAbsent(outbox, name -> registry == null ? OutboxListener.NOOP
                    : new MicrometerOutboxListener(registry, clock, settings.maxEventTypes(), tags(name)));
        }

        @Override
        public PartitionListener partitionListener(String outbox) {
            return partitionListeners.computeIfAbsent(outbox, name -> registry == null ? PartitionListener.NOOP
                    : new MicrometerPartitionListener(registry, tags(name)));
        }

        @Override
        public boolean isMeterListener(Object listener) {
            return listener != OutboxListener.NOOP && listener != PartitionListener.NOOP
                    && (listeners.containsValue(listener) || partitionListeners.containsValue(listener));
        }

        @Override
        public void bindGauges(String outbox, OutboxMonitor monitor) {
            if (registry != null) {
                new OutboxMetrics(monitor, settings.partitionGauges(), tags(outbox)).bindTo(registry);
            }
        }
    }
}
