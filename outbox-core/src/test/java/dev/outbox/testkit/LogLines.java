package dev.outbox.testkit;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** The lines logged by one class's logger while a test runs; {@link #close()} detaches. */
public final class LogLines implements AutoCloseable {

    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogLines(String loggerName) {
        this.logger = (Logger) LoggerFactory.getLogger(loggerName);
        appender.start();
        logger.addAppender(appender);
    }

    public static LogLines of(Class<?> source) {
        return new LogLines(source.getName());
    }

    /** By logger name, for a class the test cannot see (package-private elsewhere). */
    public static LogLines of(String loggerName) {
        return new LogLines(loggerName);
    }

    /** Each line as "LEVEL message", arguments filled in. */
    public List<String> lines() {
        synchronized (appender) { // AppenderBase.doAppend appends under this lock
            return appender.list.stream().map(event -> event.getLevel() + " " + event.getFormattedMessage()).toList();
        }
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
    }
}
