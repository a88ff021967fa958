package dev.outbox.jdbc;

import dev.outbox.OutboxRecord;
import dev.outbox.jdbc.testing.JdbcOutboxFixture;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.WriteFixture;

/** The transactions of transactional handlers with a DataSourceTransactionManager, the handlers writing with JDBC. */
abstract class AbstractJdbcRecordTransactionsContractTest extends AbstractRecordTransactionsContractTest {

    @Override
    protected final WriteFixture createFixture(TestDatabase.Kind kind) {
        return JdbcOutboxFixture.create(kind, OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES);
    }
}
