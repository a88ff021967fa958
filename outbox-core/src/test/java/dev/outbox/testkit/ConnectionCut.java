package dev.outbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.publish.PublishException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The fault every broker's publisher is tested with: a backlog written, processing started, and once a tenth of it is
 * completed every connection between the publisher and the broker cut for a while; then all of it must complete.
 *
 * <pre>{@code
 * ConnectionCut.Outcome outcome = ConnectionCut.midBacklog(rig, proxy, 1_000, 20, Duration.ofSeconds(10), deadline);
 * outcome.assertRecoveredWithoutFailures();
 * DeliveryCheck.of(outcome.written(), whatTheBrokerHolds) ...
 * }</pre>
 */
public final class ConnectionCut {

    private ConnectionCut() {
    }

    /**
     * What happened.
     *
     * @param records records written
     * @param completedAtCut records completed when the cut began
     * @param completedDuringCut records completed while it lasted
     * @param failedAttempts failed attempts by reason
     * @param sentMoreThanOnce records attempted more than once: the only ones the broker may hold twice
     * @param duplicatesReported acknowledgements the broker marked as duplicates
     * @param written the records as stored at the end
     * @param connections connections the proxy accepted
     * @param cuts connections it cut or refused
     * @param otherFailures failed attempts whose exception was no {@code PublishException}
     * @param failed records FAILED at the end
     */
    public record Outcome(int records, long completedAtCut, long completedDuringCut,
            Map<PublishException.Reason, Long> failedAttempts, long sentMoreThanOnce, long duplicatesReported,
            List<OutboxRecord> written, int connections, int cuts, List<Throwable> otherFailures, long failed) {

        /** The cut came mid-backlog and was felt, every record completed, none failed, and processing resumed. */
        public void assertRecoveredWithoutFailures() {
            assertThat(completedAtCut).as("cut in the middle of the backlog").isLessThan(records);
            assertThat(cuts).as("connections cut").isPositive();
            assertThat(failed).as("records FAILED").isZero();
            assertThat(failedAttempts).as("the cut was felt").isNotEmpty();
            assertThat(otherFailures).as("failures that were no PublishException").isEmpty();
        }

        @Override
        public String toString() {
            return "cut at " + completedAtCut + " of " + records + " records completed: " + completedDuringCut
                    + " completed during the cut; failed attempts " + failedAttempts + "; " + sentMoreThanOnce
                    + " records sent more than once, " + duplicatesReported + " reported as duplicates by the broker; "
                    + connections + " connections, " + cuts + " cut";
        }
    }

    /**
     * Writes {@code aggregates} × {@code recordsPerAggregate} records to a rig that is not processing yet, starts it,
     * cuts {@code proxy} for {@code cut} once a tenth is completed, and waits until every record is completed.
     */
    public static Outcome midBacklog(PublishingRig rig, TcpProxy proxy, int aggregates, int recordsPerAggregate,
            Duration cut, Duration deadline) {
        int records = aggregates * recordsPerAggregate;
        List<OutboxRecord> written = rig.write(aggregates, recordsPerAggregate, "OrderPlaced");
        rig.startProcessing();
        await().dontCatchUncaughtExceptions().atMost(deadline).pollInterval(Duration.ofMillis(10))
                .until(() -> rig.count(OutboxRecordStatus.COMPLETED) >= records / 10);
        long completedAtCut = rig.count(OutboxRecordStatus.COMPLETED);
        proxy.cutFor(cut);
        await().dontCatchUncaughtExceptions().atMost(deadline).until(() -> !proxy.isCut());
        long completedDuringCut = rig.count(OutboxRecordStatus.COMPLETED) - completedAtCut;
        rig.awaitAllCompleted(deadline);
        List<OutboxRecord> stored = written.stream().map(rig::stored).toList();
        return new Outcome(records, completedAtCut, completedDuringCut, rig.failuresByReason(),
                stored.stream().filter(record -> record.getRetryCount() > 0).count(), rig.duplicatesReported(),
                stored, proxy.connections(), proxy.cuts(), rig.otherFailures(), rig.count(OutboxRecordStatus.FAILED));
    }
}
