package dev.outbox.jdbc;

import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.spi.FailedRecordOrder;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.PartitionRecords;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.ResultSetExtractor;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;

/**
 * The statements of {@link JdbcRecordStore} on FAILED records by filter (the admin.* keys): each one statement, with
 * the admin.filter.* fragments of the criteria given in place of {@code {filter}}; and the count of one partition's
 * open records an operator looks at.
 */
final class JdbcFailedRecords {

    /** What a LIKE pattern escapes with: not a backslash, which MariaDB and MySQL strings read as an escape too. */
    private static final char LIKE_ESCAPE = '!';

    private final JdbcRecordStore store;
    private final NamedParameterJdbcTemplate jdbc;
    private final SqlStatements sql;
    private final DatabaseDialect dialect;
    private final ResultSetExtractor<FetchedRows> rows;
    private final String findFailed;
    private final String pageOldestFirst;
    private final String pageNewestFirst;
    private final String orderedReadPrelude;

    JdbcFailedRecords(JdbcRecordStore store, NamedParameterJdbcTemplate jdbc, SqlStatements sql,
            ResultSetExtractor<FetchedRows> rows) {
        this.store = store;
        this.jdbc = jdbc;
        this.sql = sql;
        this.dialect = sql.dialect();
        this.rows = rows;
        String columns = sql.get("record.columns");
        this.findFailed = sql.get("admin.findFailed").replace("{columns}", columns);
        this.pageOldestFirst = sql.get("admin.findFailedPage.oldestFirst").replace("{columns}", columns);
        this.pageNewestFirst = sql.get("admin.findFailedPage.newestFirst").replace("{columns}", columns);
        this.orderedReadPrelude = sql.find("record.orderedRead.prelude").orElse("");
    }

    FetchedRows findFailedRows(FailedRecordFilter filter, int limit) {
        MapSqlParameterSource parameters = new MapSqlParameterSource();
        String statement = findFailed.replace("{filter}", filter(filter, parameters))
                .replace("{limit}", Integer.toString(limit));
        return Objects.requireNonNull(jdbc.query(statement, parameters, rows));
    }

    FetchedRows findFailedPage(FailedRecordFilter filter, FailedRecordOrder order, @Nullable Long afterSequence,
            @Nullable Long throughSequence, int limit) {
        return store.query(pageStatement(filter, order, afterSequence, throughSequence, limit), rows);
    }

    /**
     * The page read: in sequence order through the FAILED entries of the (status, sequence_no) index, with the ordered
     * reads' prelude (PostgreSQL: no sort), from just after the cursor, up to the bound when there is one.
     */
    BoundStatement pageStatement(FailedRecordFilter filter, FailedRecordOrder order, @Nullable Long afterSequence,
            @Nullable Long throughSequence, int limit) {
        MapSqlParameterSource parameters = new MapSqlParameterSource();
        String statement = (order == FailedRecordOrder.NEWEST_FIRST ? pageNewestFirst : pageOldestFirst)
                .replace("{filter}", filter(filter, parameters))
                .replace("{after}", bound("after", order, afterSequence, parameters))
                .replace("{through}", bound("through", order, throughSequence, parameters))
                .replace("{limit}", Integer.toString(limit));
        return new BoundStatement(statement, parameters, orderedReadPrelude);
    }

    /** The statement of {@link #failedSequenceAfter}: the {@code n}th FAILED entry past the cursor in the index. */
    BoundStatement sequenceAfterStatement(FailedRecordOrder order, @Nullable Long afterSequence, int n) {
        MapSqlParameterSource parameters = new MapSqlParameterSource();
        String statement = sql.get(order == FailedRecordOrder.NEWEST_FIRST ? "admin.failedSequenceAfter.newestFirst"
                : "admin.failedSequenceAfter.oldestFirst")
                .replace("{after}", bound("after", order, afterSequence, parameters))
                .replace("{skip}", Integer.toString(n - 1));
        return new BoundStatement(statement, parameters, orderedReadPrelude);
    }

    @Nullable Long failedSequenceAfter(FailedRecordOrder order, @Nullable Long afterSequence, int n) {
        return store.query(sequenceAfterStatement(order, afterSequence, n),
                rs -> rs.next() ? Optional.of(rs.getLong(1)) : Optional.<Long>empty()).orElse(null);
    }

    /** The admin.page.{name}.* fragment of the order, its value added to the parameters; empty without a value. */
    private String bound(String name, FailedRecordOrder order, @Nullable Long sequence,
            MapSqlParameterSource parameters) {
        if (sequence == null) {
            return "";
        }
        parameters.addValue(name, sequence);
        return sql.get("admin.page." + name + (order == FailedRecordOrder.NEWEST_FIRST ? ".newestFirst"
                : ".oldestFirst"));
    }

    /** The count statement, as {@link #countFailed} runs it. */
    BoundStatement countStatement(FailedRecordFilter filter) {
        MapSqlParameterSource parameters = new MapSqlParameterSource();
        return new BoundStatement(sql.get("admin.countFailed").replace("{filter}", filter(filter, parameters)),
                parameters);
    }

    long countFailed(FailedRecordFilter filter) {
        BoundStatement count = countStatement(filter);
        Long counted = jdbc.queryForObject(count.sql(), count.parameters(), Long.class);
        return counted == null ? 0 : counted;
    }

    /** The statement of {@link #countNewBehind}, as it runs it. */
    BoundStatement newBehindStatement(Collection<String> failedIds) {
        return new BoundStatement(sql.get("admin.countNewBehind"), new MapSqlParameterSource("ids", failedIds));
    }

    Map<String, Long> countNewBehind(Collection<String> failedIds) {
        BoundStatement statement = newBehindStatement(failedIds);
        Map<String, Long> counts = new HashMap<>();
        jdbc.query(statement.sql(), statement.parameters(),
                (RowCallbackHandler) rs -> counts.put(rs.getString("id"), rs.getLong("new_behind")));
        return counts;
    }

    int retryAllFailed(FailedRecordFilter filter, Instant now) {
        return updateAll("admin.retryAllFailed", filter, new MapSqlParameterSource("now", dialect.timestampValue(now)));
    }

    int skipAllFailed(FailedRecordFilter filter, Instant now) {
        return updateAll("admin.skipAllFailed", filter, new MapSqlParameterSource("now", dialect.timestampValue(now)));
    }

    int deleteAllFailed(FailedRecordFilter filter) {
        return updateAll("admin.deleteAllFailed", filter, new MapSqlParameterSource());
    }

    private int updateAll(String key, FailedRecordFilter filter, MapSqlParameterSource parameters) {
        return jdbc.update(sql.get(key).replace("{filter}", filter(filter, parameters)), parameters);
    }

    /** The statement of {@link #partitionRecords}, for tests that read its plan. */
    BoundStatement partitionStatement(int partition, Instant now) {
        return new BoundStatement(sql.get("admin.partitionRecords"), new MapSqlParameterSource()
                .addValue("partition", partition).addValue("now", dialect.timestampValue(now)));
    }

    PartitionRecords partitionRecords(int partition, Instant now) {
        BoundStatement statement = partitionStatement(partition, now);
        return Objects.requireNonNull(jdbc.query(statement.sql(), statement.parameters(), (ResultSet row) -> {
            if (!row.next()) {
                throw new IllegalStateException("an aggregate without GROUP BY answered no row");
            }
            // SUM over no rows is NULL, which getLong reads as 0
            return new PartitionRecords(partition, now, row.getLong("new_records"), row.getLong("not_yet_due"),
                    row.getLong("deferred_records"), row.getLong("failed_records"),
                    dialect.readTimestamp(row, "oldest_new"), dialect.readTimestamp(row, "oldest_failed"));
        }));
    }

    /** The admin.filter.* fragments of the criteria given; their values go to {@code parameters}. */
    private String filter(FailedRecordFilter filter, MapSqlParameterSource parameters) {
        StringBuilder where = new StringBuilder();
        criterion(where, parameters, "eventType", filter.eventType());
        criterion(where, parameters, "aggregateId", filter.aggregateId());
        criterion(where, parameters, "handlerId", filter.handlerId());
        criterion(where, parameters, "createdFrom", timestamp(filter.createdFrom()));
        criterion(where, parameters, "createdBefore", timestamp(filter.createdBefore()));
        String text = filter.errorContains();
        criterion(where, parameters, "errorContains", text == null ? null : containing(text));
        criterion(where, parameters, "lastAttemptDueFrom", timestamp(filter.lastAttemptDueFrom()));
        criterion(where, parameters, "lastAttemptDueBefore", timestamp(filter.lastAttemptDueBefore()));
        return where.toString();
    }

    private @Nullable Object timestamp(@Nullable Instant instant) {
        return instant == null ? null : dialect.timestampValue(instant);
    }

    /** A LIKE pattern for any text containing {@code text}, its wildcards and escape character taken literally. */
    static String containing(String text) {
        StringBuilder pattern = new StringBuilder(text.length() + 2).append('%');
        for (char c : text.toCharArray()) {
            if (c == '%' || c == '_' || c == LIKE_ESCAPE) {
                pattern.append(LIKE_ESCAPE);
            }
            pattern.append(c);
        }
        return pattern.append('%').toString();
    }

    private void criterion(StringBuilder where, MapSqlParameterSource parameters, String name,
            @Nullable Object value) {
        if (value != null) {
            where.append(' ').append(sql.get("admin.filter." + name));
            parameters.addValue(name, value);
        }
    }
}
