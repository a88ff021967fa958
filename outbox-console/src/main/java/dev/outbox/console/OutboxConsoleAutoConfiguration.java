package dev.outbox.console;

import dev.outbox.admin.OutboxAdmin;
import dev.outbox.boot.NamedOutbox;
import dev.outbox.boot.NamedOutboxes;
import dev.outbox.boot.NamedOutboxesAutoConfiguration;
import dev.outbox.boot.OutboxInstanceIdentity;
import dev.outbox.boot.OutboxProcessingAutoConfiguration;
import dev.outbox.boot.OutboxStoreAutoConfiguration;
import dev.outbox.boot.actuate.OutboxActuatorAutoConfiguration;
import dev.outbox.boot.actuate.OutboxEndpoint;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.console.ConsoleOutboxes.Target;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.processing.OutboxProcessor;
import java.time.Clock;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The operator console, in servlet web applications that have an outbox, unless {@code outbox.console.enabled=false}.
 * It reuses the {@code outbox} actuator endpoint when the application has one, and otherwise builds its own (the
 * endpoint's class, not exposed).
 */
@AutoConfiguration(after = {OutboxStoreAutoConfiguration.class, OutboxProcessingAutoConfiguration.class,
        NamedOutboxesAutoConfiguration.class, OutboxActuatorAutoConfiguration.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBooleanProperty(name = "outbox.console.enabled", matchIfMissing = true)
@ConditionalOnBean({OutboxMonitor.class, OutboxAdmin.class})
@EnableConfigurationProperties(OutboxConsoleProperties.class)
public class OutboxConsoleAutoConfiguration {

    @Bean
    ConsoleOutboxes outboxConsoleOutboxes(OutboxMonitor monitor, OutboxAdmin admin,
            ObjectProvider<OutboxEndpoint> endpoint, ObjectProvider<ClusterCoordinator> coordinator,
            ObjectProvider<OutboxInstanceIdentity> identity, ObjectProvider<NamedOutboxes> named,
            ObjectProvider<OutboxProcessor> processor, Clock clock) {
        ClusterCoordinator cluster = coordinator.getIfAvailable();
        String instanceId = cluster != null ? cluster.instanceId() : identity.getObject().id();
        OutboxEndpoint reports = endpoint.getIfAvailable(
                () -> new OutboxEndpoint(monitor, cluster, instanceId, admin, clock));
        NamedOutboxes namedOutboxes = named.getIfAvailable();
        List<Target> targets = namedOutboxes == null ? List.of() : namedOutboxes.all().stream()
                .map(outbox -> namedTarget(outbox, instanceId, clock)).toList();
        return new ConsoleOutboxes(new Target(null, monitor, admin, reports,
                history(clock, processor.getIfAvailable())), targets);
    }

    private static Target namedTarget(NamedOutbox outbox, String instanceId, Clock clock) {
        return new Target(outbox.name(), outbox.monitor(), outbox.admin(), new OutboxEndpoint(outbox.monitor(),
                outbox.coordinator().orElse(null), instanceId, outbox.admin(), clock),
                history(clock, outbox.processor().orElse(null)));
    }

    /** The processor's own count gives the drain rate where no instance table shows live instances. */
    private static ConsoleHistory history(Clock clock, @Nullable OutboxProcessor processor) {
        return new ConsoleHistory(clock, ConsoleHistory.MAX_SAMPLES,
                processor == null ? null : processor::recordsCompleted);
    }

    /**
     * Samples each outbox's history at its monitor's refresh interval from startup until the context closes, so that
     * the chart holds the last hour when a page opens. The monitor refreshes only when asked: this costs its queries
     * once per interval when nothing else (metrics, health) asks already.
     */
    @Bean
    ConsoleHistorySampler outboxConsoleHistorySampler(ConsoleOutboxes outboxes) {
        return new ConsoleHistorySampler(outboxes);
    }

    /** Spring Security is looked for with the application's class loader, as {@code @ConditionalOnClass} does. */
    @Bean
    ConsoleAccess outboxConsoleAccess(OutboxConsoleProperties properties, ApplicationContext context) {
        return new ConsoleAccess(properties, ClassUtils.isPresent(ConsoleAccess.SECURITY_FILTER_TYPE,
                context.getClassLoader()));
    }

    @Bean
    ConsoleApiController outboxConsoleApiController(ConsoleOutboxes outboxes, ConsoleAccess access,
            Clock clock) {
        return new ConsoleApiController(outboxes, access, clock);
    }

    @Bean
    ConsolePageController outboxConsolePageController() {
        return new ConsolePageController();
    }

    /** The page's scripts and styles from the jar, and the role check on everything under the console's path. */
    @Bean
    WebMvcConfigurer outboxConsoleWebMvcConfigurer(OutboxConsoleProperties properties, ConsoleAccess access) {
        return new WebMvcConfigurer() {
            @Override
            public void addResourceHandlers(ResourceHandlerRegistry registry) {
                registry.addResourceHandler(properties.path() + "/assets/**")
                        .addResourceLocations("classpath:/" + ConsolePageController.ASSETS + "assets/");
            }

            @Override
            public void addInterceptors(InterceptorRegistry registry) {
                registry.addInterceptor(access).addPathPatterns(properties.path(), properties.path() + "/**");
            }
        };
    }
}
