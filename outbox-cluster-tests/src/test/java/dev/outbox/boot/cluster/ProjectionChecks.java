package dev.outbox.boot.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.boot.cluster.ProjectionWriter.Call;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.TestInfo;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What the transactional {@link ProjectionWriter} must have left in the database after a scenario: each of its
 * records' effects exactly once, in each aggregate's order, committed with the record's completion; and next to it
 * what the plain (auto-commit) handler of the same run shows.
 */
final class ProjectionChecks {

    private static final String PROJECTION_RECORDS = "outbox_record r WHERE r.handler_id = '"
            + ProjectionWriter.HANDLER_ID + "'";

    private ProjectionChecks() {
    }

    /**
     * Every record of the projection handler has exactly one {@code projection_row} (none missing, none twice), each
     * aggregate's counter equals its number of records, each aggregate's rows were written in its sequence order, and
     * each row was written by the instance, under the epoch, that completed its record (or an epoch of that instance's
     * own later claims: see the query). Reports the plain handler's duplicates of the same run next to the
     * projection's.
     */
    static void assertProjectionExactlyOnce(TestInfo test, ClusterHarness cluster) {
        JdbcTemplate jdbc = cluster.jdbc();
        long records = cluster.projectionRecordsInserted();
        long rows = cluster.count("SELECT COUNT(*) FROM projection_row");
        List<String> twice = jdbc.queryForList("SELECT record_id || ': ' || COUNT(*) || ' rows' FROM projection_row"
                + " GROUP BY record_id HAVING COUNT(*) > 1 ORDER BY MIN(id) LIMIT 20", String.class);
        long twiceCount = cluster.count("SELECT COUNT(*) FROM (SELECT record_id FROM projection_row"
                + " GROUP BY record_id HAVING COUNT(*) > 1) AS twice");
        List<String> missing = jdbc.queryForList("SELECT r.id FROM " + PROJECTION_RECORDS
                + " AND NOT EXISTS (SELECT 1 FROM projection_row p WHERE p.record_id = r.id) LIMIT 20", String.class);
        List<String> wrongCounters = jdbc.queryForList("SELECT COALESCE(r.aggregate_id, c.aggregate_id) || ': '"
                + " || COALESCE(r.n, 0) || ' records, counter ' || COALESCE(c.handled, 0)"
                + " FROM (SELECT aggregate_id, COUNT(*) AS n FROM " + PROJECTION_RECORDS + " GROUP BY aggregate_id) r"
                + " FULL JOIN projection_counter c ON c.aggregate_id = r.aggregate_id"
                + " WHERE r.n IS DISTINCT FROM c.handled LIMIT 20", String.class);
        List<String> outOfOrder = jdbc.queryForList("SELECT aggregate_id || ': sequence ' || sequence_no || ' (row '"
                + " || id || ', ' || instance_id || ') written after sequence ' || previous FROM (SELECT id,"
                + " aggregate_id, sequence_no, instance_id, LAG(sequence_no) OVER (PARTITION BY aggregate_id"
                + " ORDER BY id) AS previous FROM projection_row) AS t WHERE previous >= sequence_no LIMIT 20",
                String.class);
        // The trigger reads the partition after the completion's fence did: a claim committed in between shows a later
        // epoch. Only a claim by another instance is a stale write; the owner's own re-claim (after an outage) is not.
        List<String> notWithTheirCompletion = jdbc.queryForList("SELECT p.record_id || ': row by ' || p.instance_id"
                + " || ' under epoch ' || p.epoch || ', completed by ' || COALESCE(s.writer, 'nobody')"
                + " || ' under epoch ' || COALESCE(s.epoch_at_write, -1)"
                + " || ' of ' || COALESCE(s.owner_at_write, 'nobody')"
                + " FROM projection_row p LEFT JOIN status_write s"
                + " ON s.record_id = p.record_id AND s.new_status = 'COMPLETED'"
                + " WHERE s.writer IS DISTINCT FROM p.instance_id OR s.epoch_at_write IS NULL"
                + " OR s.epoch_at_write < p.epoch OR s.epoch_at_write > p.epoch AND EXISTS (SELECT 1 FROM"
                + " ownership_change o WHERE o.partition_no = p.partition_no AND o.new_epoch > p.epoch"
                + " AND o.new_epoch <= s.epoch_at_write AND o.new_owner IS DISTINCT FROM p.instance_id)"
                + " LIMIT 20", String.class);
        List<Call> calls = cluster.nodeIds().stream().flatMap(node -> calls(cluster, node).stream()).toList();
        ClusterAssertions.report(test, "plain handler (auto-commit): %d records handled twice (%d calls for %d "
                + "records); projection handler (transactional): %d records with two rows, %d missing (%d rows for %d "
                + "records; %d calls in the node logs, so %d rolled back)", cluster.duplicates().size(),
                cluster.handlerCalls(), cluster.processorRecordsInserted(), twiceCount, missing.size(), rows, records,
                calls.size(), calls.size() - rows);
        assertThat(records).as("records of the projection handler").isPositive();
        assertThat(twice).as("records with more than one projection row").isEmpty();
        assertThat(missing).as("records of the projection handler without a projection row").isEmpty();
        assertThat(rows).as("projection rows").isEqualTo(records);
        assertThat(wrongCounters).as("aggregates whose projection counter differs from their records").isEmpty();
        assertThat(outOfOrder).as("projection rows out of their aggregate's order").isEmpty();
        assertThat(notWithTheirCompletion).as("projection rows not written by the completion's instance and epoch")
                .isEmpty();
    }

    /**
     * A stale owner's projection calls under the epochs it lost (records of {@code partitions} it had in hand when
     * it froze) left no writes: each such record's one row is from a later owner. Fails unless the call of
     * {@code heldRecordId}, which the owner was frozen in, is one of them, so that it cannot pass for want of them.
     * Returns how many records that were.
     */
    static int assertStaleOwnersCallsRolledBack(ClusterHarness cluster, String staleOwner, Set<Integer> partitions,
            PartitionTable takenOver, String heldRecordId) {
        List<Call> underLostEpochs = calls(cluster, staleOwner).stream()
                .filter(call -> partitions.contains(call.partition())
                        && call.epoch() < takenOver.epochOf(call.partition()))
                .toList();
        Map<String, List<Row>> rowsByRecord = cluster.jdbc().query("SELECT record_id, instance_id, epoch"
                + " FROM projection_row ORDER BY id", (rs, row) -> new Row(rs.getString("record_id"),
                        rs.getString("instance_id"), rs.getLong("epoch"))).stream()
                .collect(Collectors.groupingBy(Row::recordId));
        Map<String, Call> rolledBack = underLostEpochs.stream()
                .filter(call -> rowsByRecord.getOrDefault(call.recordId(), List.of()).stream()
                        .noneMatch(row -> row.instanceId().equals(staleOwner) && row.epoch() == call.epoch()))
                .collect(Collectors.toMap(Call::recordId, Function.identity(), (first, second) -> first));
        assertThat(rolledBack).as("projection calls %s made under epochs it then lost, not committed", staleOwner)
                .containsKey(heldRecordId);
        assertThat(rolledBack.values()).allSatisfy(call -> assertThat(rowsByRecord.get(call.recordId()))
                .as("rows of record %s, called by %s under lost epoch %d", call.recordId(), staleOwner, call.epoch())
                .singleElement().satisfies(row -> assertThat(row.epoch()).as("epoch of %s", row)
                        .isGreaterThan(call.epoch())));
        return rolledBack.size();
    }

    private static List<Call> calls(ClusterHarness cluster, String node) {
        return cluster.logLinesOf(node).stream().map(Call::parse).filter(Objects::nonNull).toList();
    }

    private record Row(String recordId, String instanceId, long epoch) {
    }
}
