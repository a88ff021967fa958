package dev.outbox.jdbc;

import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.spi.PartitionState;
import dev.outbox.spi.PartitionStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;

/**
 * {@link PartitionStore} in plain SQL over JDBC, statements from the {@link DatabaseDialect}'s SQL resources. A claim
 * is one conditional {@code UPDATE} (compare-and-set on the epoch), so of two coordinators claiming the same partition
 * under the same epoch at most one succeeds. Whether the current owner is still live is judged against a cutoff
 * computed from the database's clock, read just before; needs no surrounding transaction.
 */
public final class JdbcPartitionStore implements PartitionStore {

    private final NamedParameterJdbcTemplate jdbc;
    private final DatabaseDialect dialect;
    private final String clockNow;
    private final String findAll;
    private final String claim;
    private final String release;

    /** On the default tables ({@link OutboxTables#defaults()}). */
    public JdbcPartitionStore(DataSource dataSource, DatabaseDialect dialect) {
        this(dataSource, dialect.statements());
    }

    /**
     * With the statements of one database on one set of tables, as
     * {@link DatabaseDialect#detect(DataSource, OutboxTables)} makes them.
     */
    public JdbcPartitionStore(DataSource dataSource, SqlStatements sql) {
        this.jdbc = new NamedParameterJdbcTemplate(Objects.requireNonNull(dataSource, "dataSource"));
        this.dialect = sql.dialect();
        this.clockNow = sql.get("clock.now");
        this.findAll = sql.get("partition.findAll");
        this.claim = sql.get("partition.claim");
        this.release = sql.get("partition.release");
    }

    @Override
    public List<PartitionState> findAll() {
        return jdbc.getJdbcTemplate().query(findAll, (rs, rowNum) -> new PartitionState(rs.getInt("partition_no"),
                rs.getString("owner_instance_id"), rs.getLong("epoch")));
    }

    @Override
    public boolean claim(int partition, long expectedEpoch, String instanceId, Duration staleTimeout) {
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(staleTimeout, "staleTimeout");
        BoundStatement statement = claimStatement(partition, expectedEpoch, instanceId,
                databaseNow().minus(staleTimeout));
        return jdbc.update(statement.sql(), statement.parameters()) == 1;
    }

    /** partition.claim; {@code cutoff} is the database's now minus the stale timeout. */
    BoundStatement claimStatement(int partition, long expectedEpoch, String instanceId, Instant cutoff) {
        return new BoundStatement(claim, new MapSqlParameterSource("instanceId", instanceId)
                .addValue("partition", partition).addValue("expectedEpoch", expectedEpoch)
                .addValue("cutoff", dialect.timestampValue(cutoff)));
    }

    @Override
    public boolean release(int partition, long epoch, String instanceId) {
        return jdbc.update(release, Map.of("partition", partition, "instanceId",
                Objects.requireNonNull(instanceId, "instanceId"), "epoch", epoch)) == 1;
    }

    private Instant databaseNow() {
        Instant now = jdbc.getJdbcTemplate().queryForObject(clockNow,
                (rs, rowNum) -> dialect.readTimestamp(rs, "db_now"));
        return Objects.requireNonNull(now, "the database returned no CURRENT_TIMESTAMP");
    }
}
