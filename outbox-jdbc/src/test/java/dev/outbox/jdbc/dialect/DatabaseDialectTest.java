package dev.outbox.jdbc.dialect;

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
        assertThat(DatabaseDialect.fromProductName("MariaDB")).isEqualTo(DatabaseDialect.MARIADB);
        assertThat(DatabaseDialect.fromProductName("MySQL")).isEqualTo(DatabaseDialect.MYSQL);
    }

    @Test
    void detectionFromAnUnsupportedDataSourceFailsNamingItAndTheSupportedOnes() {
        javax.sql.DataSource derby = (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {javax.sql.DataSource.class}, (ds, dsMethod, dsArgs) ->
                        switch (dsMethod.getName()) {
                            case "getConnection" -> java.lang.reflect.Proxy.newProxyInstance(
                                    getClass().getClassLoader(), new Class<?>[] {java.sql.Connection.class},
                                    (c, cMethod, cArgs) -> switch (cMethod.getName()) {
                                        case "getMetaData" -> java.lang.reflect.Proxy.newProxyInstance(
                                                getClass().getClassLoader(),
                                                new Class<?>[] {java.sql.DatabaseMetaData.class},
                                                (m, mMethod, mArgs) -> "Apache Derby");
                                        case "close" -> null;
                                        default -> throw new UnsupportedOperationException(cMethod.getName());
                                    });
                            default -> throw new UnsupportedOperationException(dsMethod.getName());
                        });

        assertThatThrownBy(() -> DatabaseDialect.detect(derby)).isInstanceOf(IllegalStateException.class)
                .hasMessage("Outbox does not support the database 'Apache Derby'; supported: PostgreSQL, H2, MariaDB, "
                        + "MySQL");
    }

    @Test
    void mariaDbAndMySqlShareTheirStatementsAndTellTimeInUtc() {
        assertThat(DatabaseDialect.MARIADB.statements().get("instance.heartbeat"))
                .isEqualTo(DatabaseDialect.MYSQL.statements().get("instance.heartbeat"))
                .contains("last_heartbeat = UTC_TIMESTAMP(6)").doesNotContain("{now}");
        assertThat(DatabaseDialect.POSTGRESQL.statements().get("instance.heartbeat"))
                .contains("last_heartbeat = CURRENT_TIMESTAMP");
        assertThat(DatabaseDialect.MARIADB.timestampValue(java.time.Instant.parse("2026-01-02T03:04:05.123456Z")))
                .isEqualTo(java.time.LocalDateTime.parse("2026-01-02T03:04:05.123456"));
    }

    @Test
    void mariaDbReadsItsServerFromItsOwnStatementAndMySqlFromTheirSharedFile() {
        assertThat(DatabaseDialect.MARIADB.statements().get("database.location")).contains("@@server_uid")
                .doesNotContain("@@server_uuid");
        assertThat(DatabaseDialect.MYSQL.statements().get("database.location")).contains("@@server_uuid");
    }

    @Test
    void anUnsupportedDatabaseIsNamedWithTheSupportedOnes() {
        assertThatThrownBy(() -> DatabaseDialect.fromProductName("Microsoft SQL Server"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Outbox does not support the database 'Microsoft SQL Server'; supported: PostgreSQL, H2, MariaDB, MySQL");
    }

    @ParameterizedTest
    @EnumSource(DatabaseDialect.class)
    void everyDialectHasEveryStatement(DatabaseDialect dialect) {
        SqlStatements statements = dialect.statements();
        for (String key : new String[] {"record.columns", "record.findDue.headOfAggregate", "record.findDue.any",
                "record.markCompleted", "record.scheduleRetry", "record.markFailed", "record.fence", "clock.now",
                "instance.register.update", "instance.register.insert", "instance.heartbeat",
                "instance.markShuttingDown", "instance.remove", "instance.findLive", "instance.removeStale",
                "partition.findAll", "partition.claim", "partition.release", "record.purge", "admin.findFailed",
                "admin.retryAllFailed", "database.location"}) {
            assertThat(statements.get(key)).as(key).isNotBlank().doesNotContain("{now}");
        }
        assertThatThrownBy(() -> statements.get("no.such.statement"))
                .hasMessage("Outbox: no SQL statement 'no.such.statement' for " + dialect);
    }
}
