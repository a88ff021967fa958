package dev.outbox.boot.cluster;

import dev.outbox.Outbox;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /cluster/write}: the node writes records through its own {@code Outbox}, so that they are addressed to
 * the handlers this node's version subscribes to the event type. Only in nodes started as web applications.
 */
@RestController
class ClusterWriteEndpoint {

    private final Outbox outbox;
    private final TransactionTemplate transactions;

    ClusterWriteEndpoint(Outbox outbox, TransactionTemplate transactions) {
        this.outbox = outbox;
        this.transactions = transactions;
    }

    /**
     * Writes {@code rounds} records of {@code eventType} for each of {@code aggregates} aggregates named
     * {@code <prefix>-<n>}, round by round, one transaction per round; returns how many records were saved (one per
     * subscribed handler).
     */
    @PostMapping("/cluster/write")
    long write(@RequestParam String eventType, @RequestParam String prefix, @RequestParam int aggregates,
            @RequestParam int rounds) {
        long saved = 0;
        for (int round = 0; round < rounds; round++) {
            int r = round;
            saved += transactions.execute(status -> {
                for (int aggregate = 0; aggregate < aggregates; aggregate++) {
                    outbox.schedule(new ClusterEvent(r), prefix + "-" + aggregate, eventType);
                }
                return (long) aggregates;
            });
        }
        return saved;
    }
}
