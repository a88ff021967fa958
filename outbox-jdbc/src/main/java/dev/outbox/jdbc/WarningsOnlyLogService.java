package dev.outbox.jdbc;

import java.util.logging.Level;
import liquibase.logging.LogService;
import liquibase.logging.Logger;
import liquibase.logging.core.AbstractLogService;
import liquibase.logging.core.AbstractLogger;
import org.jspecify.annotations.Nullable;

/**
 * Liquibase's logging, within the outbox's own schema run, passing on warnings and errors only (with their
 * exceptions) to the log service in place before: {@link OutboxSchemaInitializer} reports the run in one line.
 */
final class WarningsOnlyLogService extends AbstractLogService {

    private final LogService delegate;

    WarningsOnlyLogService(LogService delegate) {
        this.delegate = delegate;
    }

    @Override
    public int getPriority() {
        return delegate.getPriority();
    }

    @Override
    @SuppressWarnings("rawtypes") // as LogService declares it
    public Logger getLog(Class clazz) {
        return new WarningsOnlyLogger(delegate.getLog(clazz));
    }

    private static final class WarningsOnlyLogger extends AbstractLogger {

        private final Logger delegate;

        WarningsOnlyLogger(Logger delegate) {
            this.delegate = delegate;
        }

        @Override
        public void log(Level level, String message, @Nullable Throwable exception) {
            if (level.intValue() >= Level.WARNING.intValue()) {
                delegate.log(level, message, exception);
            }
        }
    }
}
