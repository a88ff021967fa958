package dev.outbox.boot.cluster;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.console.OutboxConsoleProperties;
import dev.outbox.handler.HandlerRegistration;
import dev.outbox.jdbc.dialect.SqlStatements;
import java.time.Clock;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * One instance of an outbox cluster: the starter's auto-configuration plus a handler that writes down every call in
 * {@code handled_record}. The process tests start it as a JVM of its own ({@link ClusterNode}); the in-process test
 * runs several of it in the test JVM.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ClusterNodeApplication {

    /** See {@link ConsoleUsers}. */
    static final String CONSOLE_SECURITY = "cluster.console-security";

    public static void main(String[] args) {
        exitWhenTestJvmIsGone();
        // Not a web application unless a test starts it as one (--spring.main.web-application-type=servlet).
        new SpringApplicationBuilder(ClusterNodeApplication.class)
                .properties("spring.main.web-application-type=none").run(args);
    }

    /**
     * {@code cluster.handlers} (default none): ids of typed handlers this node has, besides its record processor. Each
     * subscribes to the event type of its own id, and writes its calls down like the record processor. Nodes with
     * different lists play the versions of a rolling deploy.
     */
    /**
     * {@code cluster.start-at} (epoch milliseconds): the node waits for that instant before any bean is made, so that
     * nodes started one after the other reach their database initialization at the same moment.
     */
    @Bean
    static BeanFactoryPostProcessor clusterStartBarrier(Environment environment) {
        long startAt = environment.getProperty("cluster.start-at", Long.class, 0L);
        return beanFactory -> {
            long wait = startAt - System.currentTimeMillis();
            if (wait > 0) {
                try {
                    Thread.sleep(wait);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    @Bean
    static BeanDefinitionRegistryPostProcessor clusterHandlers(Environment environment) {
        String[] ids = environment.getProperty("cluster.handlers", String[].class, new String[0]);
        return new BeanDefinitionRegistryPostProcessor() {
            @Override
            public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
                BeanFactory beans = (BeanFactory) registry;
                for (String id : ids) {
                    registry.registerBeanDefinition("clusterHandler-" + id, new RootBeanDefinition(
                            HandlerRegistration.class, () -> typedHandler(id, beans.getBean(HandledRecordWriter.class))));
                }
            }

            @Override
            public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
            }
        };
    }

    /**
     * {@code cluster.data-sources} (default none): names of further DataSource beans, each connected by
     * {@code cluster.data-source.<name>.url}, {@code .username} and {@code .password}, for the outboxes of
     * {@code outbox.outboxes}. As Spring Boot documents for further DataSources, they are no default candidates, so the
     * main one stays auto-configured.
     */
    @Bean
    static BeanDefinitionRegistryPostProcessor clusterDataSources(Environment environment) {
        String[] names = environment.getProperty("cluster.data-sources", String[].class, new String[0]);
        return new BeanDefinitionRegistryPostProcessor() {
            @Override
            public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
                for (String name : names) {
                    String prefix = "cluster.data-source." + name + ".";
                    RootBeanDefinition definition = new RootBeanDefinition(HikariDataSource.class, () -> {
                        HikariDataSource pool = new HikariDataSource();
                        pool.setPoolName(name);
                        pool.setJdbcUrl(environment.getRequiredProperty(prefix + "url"));
                        pool.setUsername(environment.getRequiredProperty(prefix + "username"));
                        pool.setPassword(environment.getProperty(prefix + "password", ""));
                        pool.setMaximumPoolSize(4);
                        return pool;
                    });
                    definition.setDefaultCandidate(false);
                    definition.setDestroyMethodName("close");
                    registry.registerBeanDefinition(name, definition);
                }
            }

            @Override
            public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
            }
        };
    }

    private static HandlerRegistration<ClusterEvent> typedHandler(String id, HandledRecordWriter writer) {
        return HandlerRegistration.builder(id, ClusterEvent.class).eventType(id)
                .handler((event, metadata) -> writer.handled(metadata)).build();
    }

    /** Writes through the node's Outbox when it runs as a web application; see {@link ClusterWriteEndpoint}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication
    @Import(ClusterWriteEndpoint.class)
    static class WebWrites {
    }

    /**
     * {@value #CONSOLE_SECURITY}{@code =true} (default false): the harness puts Spring Security on the node's class
     * path (no other node has it) and the node signs users in with Spring Security's form login, as an application
     * with the console would: {@value #OPERATOR} with the console's {@code outbox.console.role} and {@value #VIEWER}
     * without it, both with the password {@value #PASSWORD}. CSRF protection stays on; the actuator stays open to
     * anyone, as on the other nodes, for the harness.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnBooleanProperty(CONSOLE_SECURITY)
    @ConditionalOnClass(name = "org.springframework.security.web.SecurityFilterChain")
    static class ConsoleUsers {

        static final String OPERATOR = "operator";
        static final String VIEWER = "viewer";
        static final String PASSWORD = "secret";

        @Bean
        InMemoryUserDetailsManager consoleUsers(OutboxConsoleProperties console) {
            return new InMemoryUserDetailsManager(
                    User.withUsername(OPERATOR).password("{noop}" + PASSWORD).roles(console.role()).build(),
                    User.withUsername(VIEWER).password("{noop}" + PASSWORD).roles("VIEWER").build());
        }

        @Bean
        SecurityFilterChain consoleSecurity(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(requests -> requests.requestMatchers("/actuator/**").permitAll()
                            .anyRequest().authenticated())
                    .csrf(csrf -> csrf.ignoringRequestMatchers("/actuator/**"))
                    .formLogin(Customizer.withDefaults()).build();
        }
    }

    /**
     * {@code cluster.handler-pause} (default none) makes every call take that much longer, like a broker round trip,
     * so that a scenario can keep records in flight for as long as it needs. {@code cluster.failure-switch=true}
     * (default false) makes the record processor fail records of the event types listed in {@code failing_event_type}.
     */
    @Bean
    HandledRecordWriter handledRecordWriter(DataSource dataSource, SqlStatements statements,
            @Value("${outbox.instance.id}") String instanceId, @Value("${cluster.handler-pause:0ms}") Duration pause,
            @Value("${cluster.failure-switch:false}") boolean failureSwitch) {
        return new HandledRecordWriter(new JdbcTemplate(dataSource), statements.dialect(), instanceId, pause,
                failureSwitch);
    }

    /**
     * {@code cluster.projection=true} (default false; PostgreSQL only) adds the transactional
     * {@link ProjectionWriter} (handler id {@value ProjectionWriter#HANDLER_ID}), paused like the record processor.
     */
    @Bean
    @ConditionalOnProperty(name = "cluster.projection", havingValue = "true")
    HandlerRegistration<ClusterEvent> projectionHandler(DataSource dataSource,
            @Value("${outbox.instance.id}") String instanceId, @Value("${cluster.handler-pause:0ms}") Duration pause) {
        return new ProjectionWriter(new JdbcTemplate(dataSource), instanceId, pause).registration();
    }

    /** {@code cluster.clock-offset} (default none) skews this node's clock, for the clock-skew scenario. */
    @Bean
    Clock clock(@Value("${cluster.clock-offset:0s}") Duration offset) {
        return Clock.offset(Clock.systemUTC(), offset);
    }

    /**
     * A node must not outlive the test JVM that started it, even when that one is killed with -9: a watchdog halts
     * this JVM once its parent process is gone. The thread is not a daemon, which also keeps the JVM up after main
     * returns (every outbox thread is a daemon); SIGTERM still shuts the JVM down normally.
     */
    private static void exitWhenTestJvmIsGone() {
        ProcessHandle testJvm = ProcessHandle.current().parent().orElse(null);
        if (testJvm == null) {
            return;
        }
        Thread watchdog = new Thread(() -> {
            while (testJvm.isAlive()) {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
            }
            Runtime.getRuntime().halt(3);
        }, "test-jvm-watchdog");
        watchdog.setDaemon(false);
        watchdog.start();
    }
}
