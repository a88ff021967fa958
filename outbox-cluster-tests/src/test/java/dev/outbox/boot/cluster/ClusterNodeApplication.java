package dev.outbox.boot.cluster;

import dev.outbox.jpa.dialect.DatabaseDialect;
import java.time.Clock;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One instance of an outbox cluster: the starter's auto-configuration plus a handler that writes down every call in
 * {@code handled_record}. The process tests start it as a JVM of its own ({@link ClusterNode}); the in-process test
 * runs several of it in the test JVM.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ClusterNodeApplication {

    public static void main(String[] args) {
        exitWhenTestJvmIsGone();
        new SpringApplicationBuilder(ClusterNodeApplication.class).web(WebApplicationType.NONE).run(args);
    }

    /**
     * {@code cluster.handler-pause} (default none) makes every call take that much longer, like a broker round trip,
     * so that a scenario can keep records in flight for as long as it needs.
     */
    @Bean
    HandledRecordWriter handledRecordWriter(DataSource dataSource, DatabaseDialect dialect,
            @Value("${outbox.instance.id}") String instanceId, @Value("${cluster.handler-pause:0ms}") Duration pause) {
        return new HandledRecordWriter(new JdbcTemplate(dataSource), dialect, instanceId, pause);
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
