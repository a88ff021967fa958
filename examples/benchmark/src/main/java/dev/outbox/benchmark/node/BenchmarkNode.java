package dev.outbox.benchmark.node;

import dev.outbox.OutboxRecordProcessor;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.spi.OutboxListener;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A processing instance: the outbox starter with its default settings on the datasource it is given, plus the
 * benchmark's instruments (all of them observers): the {@link HandledRecorder} handler, a {@link QueryCounter} behind
 * the application's {@link DataSource}, the {@link StartGate}, an outcome-counting listener and the report file.
 *
 * <p>Properties: {@code spring.datasource.*}, {@code outbox.instance.id}, {@code bench.go-file},
 * {@code bench.hold-file} (optional), {@code bench.report-file}. The driver starts it as
 * {@code java -jar outbox-benchmark.jar --role=node ...}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class BenchmarkNode {

    private static final long PARENT_CHECK_MILLIS = 500;

    /** Runs the node until SIGTERM, or until the process that started it is gone (then it halts). */
    public static void run(String[] args) throws InterruptedException {
        ProcessHandle parent = ProcessHandle.current().parent().orElse(null);
        if (parent != null) {
            Thread watchdog = new Thread(() -> watchParent(parent), "bench-parent-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
        }
        ConfigurableApplicationContext context;
        try {
            context = new SpringApplicationBuilder(BenchmarkNode.class)
                    .web(WebApplicationType.NONE)
                    .bannerMode(Banner.Mode.OFF)
                    .run(args);
        } catch (RuntimeException e) {
            // Spring Boot has logged why; do not linger with half-started threads.
            System.exit(1);
            return;
        }
        // Every outbox thread is a daemon: this (non-daemon) thread keeps the JVM up until the context closes.
        while (context.isActive()) {
            Thread.sleep(PARENT_CHECK_MILLIS);
        }
    }

    /** A node must not outlive its driver, even one killed with -9. */
    private static void watchParent(ProcessHandle parent) {
        while (parent.isAlive()) {
            try {
                Thread.sleep(PARENT_CHECK_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
        Runtime.getRuntime().halt(3);
    }

    @Bean
    static NodeState benchNodeState() {
        return new NodeState(new QueryCounter());
    }

    /** Wraps the application's data source, so the library's pool and reserved heartbeat connection are counted. */
    @Bean
    static BeanPostProcessor benchCountingDataSource(ObjectProvider<NodeState> state) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof DataSource dataSource && !(bean instanceof CountingDataSource)) {
                    NodeState counters = state.getObject();
                    return new CountingDataSource(dataSource, counters.queries, counters.connectionsBorrowed);
                }
                return bean;
            }
        };
    }

    @Bean
    static RecordStoreGate benchRecordStoreGate(ObjectProvider<StartGate> gate) {
        return new RecordStoreGate(gate);
    }

    @Bean
    StartGate benchStartGate(@Value("${bench.go-file:}") String goFile, @Value("${bench.hold-file:}") String holdFile,
            NodeState state, ObjectProvider<OutboxProcessor> processor) {
        return new StartGate(goFile, holdFile, state, processor);
    }

    @Bean
    NodeReporter benchNodeReporter(@Value("${outbox.instance.id}") String instanceId, NodeState state,
            @Value("${bench.report-file:}") String file) {
        return new NodeReporter(instanceId, state, file);
    }

    @Bean
    OutboxRecordProcessor benchHandledRecorder(@Value("${outbox.instance.id}") String instanceId,
            @Value("${spring.datasource.url}") String url, @Value("${spring.datasource.username}") String user,
            @Value("${spring.datasource.password:}") String password, NodeState state, NodeReporter reporter) {
        return new HandledRecorder(instanceId, url, user, password, state, reporter);
    }

    @Bean
    ReadyMarker benchReadyMarker(@Value("${bench.report-file:}") String file) {
        return new ReadyMarker(file);
    }

    @Bean
    OutboxListener benchCountingListener(NodeState state) {
        return new CountingListener(state);
    }
}
