package dev.outbox.benchmark;

import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.processing.ProcessingOptions;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code EXPLAIN (ANALYZE, BUFFERS)} of the due fetch a node at the defaults sends on PostgreSQL: the library's own
 * statement from postgresql.xml, for one node owning every partition (no partition filter, no handler set aside), at
 * the default batch size, after its prelude in the same transaction, from the head of the index or from a floor.
 */
final class DueFetchPlan {

    private static final SqlStatements SQL = DatabaseDialect.POSTGRESQL.statements();

    private final NamedParameterJdbcTemplate jdbc;
    private final TransactionTemplate transactions;

    DueFetchPlan(DataSource dataSource) {
        this.jdbc = new NamedParameterJdbcTemplate(dataSource);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    }

    /** The plan's lines, the fetch starting at {@code fromSequence} (null: from the head). */
    List<String> explain(@Nullable Long fromSequence) {
        ProcessingOptions defaults = ProcessingOptions.defaults();
        boolean headOfAggregate = defaults.stopOnFirstFailure();
        MapSqlParameterSource parameters = new MapSqlParameterSource("now",
                DatabaseDialect.POSTGRESQL.timestampValue(Instant.now()));
        String floorFilter = "";
        if (fromSequence != null) {
            floorFilter = SQL.get(headOfAggregate ? "record.filter.floor.headOfAggregate" : "record.filter.floor");
            parameters.addValue("fromSequence", fromSequence);
        }
        String fetch = SQL.get(headOfAggregate ? "record.findDue.headOfAggregate" : "record.findDue.any")
                .replace("{columns}", SQL.get("record.columns"))
                .replace("{partitionFilter}", "")
                .replace("{setAsideFilter}", "")
                .replace("{floorFilter}", floorFilter)
                .replace("{limit}", Integer.toString(defaults.batchSize()));
        String prelude = SQL.find("record.orderedRead.prelude").orElse("");
        return Objects.requireNonNull(transactions.execute(status -> {
            if (!prelude.isBlank()) {
                jdbc.getJdbcOperations().queryForList(prelude);
            }
            return jdbc.queryForList("EXPLAIN (ANALYZE, BUFFERS) " + fetch, parameters, String.class);
        }));
    }
}
