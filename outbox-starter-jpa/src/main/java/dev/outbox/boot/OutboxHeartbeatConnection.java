package dev.outbox.boot;

import dev.outbox.jpa.JdbcInstanceStore;
import dev.outbox.jpa.ReservedConnectionDataSource;
import dev.outbox.jpa.dialect.DatabaseDialect;
import javax.sql.DataSource;

/** The instance store the heartbeats use, on a connection reserved from the application's pool; closed with it. */
final class OutboxHeartbeatConnection implements AutoCloseable {

    private final ReservedConnectionDataSource connection;
    private final JdbcInstanceStore store;

    OutboxHeartbeatConnection(DataSource dataSource, DatabaseDialect dialect) {
        this.connection = new ReservedConnectionDataSource(dataSource);
        this.store = new JdbcInstanceStore(connection, dialect);
    }

    JdbcInstanceStore store() {
        return store;
    }

    @Override
    public void close() {
        connection.close();
    }
}
