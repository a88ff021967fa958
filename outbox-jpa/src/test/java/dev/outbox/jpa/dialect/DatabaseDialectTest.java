package dev.outbox.jpa.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class DatabaseDialectTest {

    @Test
    void detectsTheSupportedDatabasesByProductName() {
        assertThat(DatabaseDialect.fromProductName("PostgreSQL")).isEqualTo(DatabaseDialect.POSTGRESQL);
        assertThat(DatabaseDialect.fromProductName("H2")).isEqualTo(DatabaseDialect.H2);
    }

    @Test
    void anUnsupportedDatabaseIsNamedWithTheSupportedOnes() {
        assertThatThrownBy(() -> DatabaseDialect.fromProductName("Microsoft SQL Server"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Outbox does not support the database 'Microsoft SQL Server'; supported: PostgreSQL, H2");
    }

    @ParameterizedTest
    @EnumSource(DatabaseDialect.class)
    void everyDialectHasEveryStatement(DatabaseDialect dialect) {
        SqlStatements statements = dialect.statements();
        for (String key : new String[] {"record.columns", "record.findDue.headOfAggregate", "record.findDue.any",
                "record.markCompleted", "record.scheduleRetry", "record.markFailed", "record.fence", "clock.now",
                "instance.register.update", "instance.register.insert", "instance.heartbeat",
                "instance.markShuttingDown", "instance.remove", "instance.findLive", "instance.removeStale",
                "partition.findAll", "partition.claim", "partition.release"}) {
            assertThat(statements.get(key)).as(key).isNotBlank();
        }
        assertThatThrownBy(() -> statements.get("no.such.statement"))
                .hasMessage("Outbox: no SQL statement 'no.such.statement' for " + dialect);
    }
}
