package dev.outbox.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.partition.Fence;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.PartitionStore;
import dev.outbox.spi.RecordStore;
import dev.outbox.spi.RecordStoreContract;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The shared store contract against the in-memory store, plus what is particular to it. */
class InMemoryRecordStoreTest extends RecordStoreContract {

    private final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
    private final InMemoryClusterStore cluster = new InMemoryClusterStore(clock);
    private final InMemoryRecordStore store = new InMemoryRecordStore(cluster);

    @Override
    protected RecordStore recordStore() {
        return store;
    }

    @Override
    protected boolean tellsHighestAssignedSequence() {
        return true;
    }

    @Override
    protected PartitionStore partitions() {
        return cluster;
    }

    @Test
    void aStoreWithoutAPartitionTableRefusesAFencedWriteLoudly() {
        InMemoryRecordStore single = new InMemoryRecordStore();
        OutboxRecord record = single.save(record("A", "a1"));
        Delivery fenced = Delivery.of(record, Fence.of(record.getPartition(), 1, "node-a"));

        assertThatThrownBy(() -> single.markCompleted(fenced, clock.instant()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no partition table").hasMessageContaining("new InMemoryRecordStore(clusterStore)");
        assertThat(single.markCompleted(Delivery.unfenced(record), clock.instant())).isTrue();
    }

    @Test
    void aTransactionThatThrowsPutsTheRecordsBackAsTheyWereAndOneThatReturnsKeepsWhatItDid() {
        OutboxRecord kept = store.save(record("A", "kept"));
        OutboxRecord completed = store.save(record("A", "completed"));
        OutboxRecord deleted = store.save(record("B", "deleted"));

        assertThatThrownBy(() -> store.inTransaction(() -> {
            store.save(record("C", "saved"));
            assertThat(store.markCompleted(Delivery.unfenced(completed), clock.instant())).isTrue();
            assertThat(store.deleteCompleted(Delivery.unfenced(deleted))).isTrue();
            throw new IllegalStateException("rolled back");
        })).hasMessage("rolled back");

        assertThat(store.all()).extracting(OutboxRecord::getPayload, OutboxRecord::getStatus).containsExactly(
                org.assertj.core.groups.Tuple.tuple("kept", OutboxRecordStatus.NEW),
                org.assertj.core.groups.Tuple.tuple("completed", OutboxRecordStatus.NEW),
                org.assertj.core.groups.Tuple.tuple("deleted", OutboxRecordStatus.NEW));

        store.inTransaction(() -> store.save(record("C", "saved")));

        assertThat(store.all()).extracting(OutboxRecord::getPayload).containsExactly("kept", "completed", "deleted",
                "saved");
        assertThat(store.findById(kept.getId())).isPresent();
    }

    @Override
    protected OutboxRecordRepository repository() {
        return store;
    }

    private OutboxRecord record(String aggregateId, String payload) {
        return OutboxRecord.builder().aggregateId(aggregateId).eventType("T").payload(payload)
                .maxPayloadBytes(Integer.MAX_VALUE).build(clock);
    }

    @Test
    void saveRejectsAPayloadOverTheStoresLimitNamingItAndWritesNothing() {
        InMemoryRecordStore small = new InMemoryRecordStore(8);

        small.save(record("A", "12345678"));
        assertThatThrownBy(() -> small.save(record("A", "123456789")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("9 bytes")
                .hasMessageContaining("limit is 8 bytes");
        assertThatThrownBy(() -> small.save(record("A", "éééé€"))).as("counted in UTF-8 bytes")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("11 bytes");

        assertThat(small.all()).extracting(OutboxRecord::getPayload).containsExactly("12345678");
    }

    @Test
    void saveRejectsADuplicateId() {
        OutboxRecord record = record("A", "p");
        store.save(record);

        assertThatThrownBy(() -> store.save(record.toBuilder().payload("other").build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(record.getId());
        assertThat(store.findById(record.getId()).orElseThrow().getPayload()).isEqualTo("p");
        assertThat(store.all()).hasSize(1);
    }

    @Test
    void saveReturnsTheRecordAsGivenAndStoresItWithASequence() {
        OutboxRecord record = record("A", "p");

        assertThat(store.save(record)).isSameAs(record);
        assertThat(store.findById(record.getId()).orElseThrow().getSequence()).isEqualTo(1L);
    }

    @Test
    void concurrentSavesGetDistinctGapFreeSequences() throws Exception {
        int threads = 8;
        int perThread = 500;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(executor.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        store.save(record("agg-" + thread, thread + ":" + i));
                    }
                }));
            }
            for (Future<?> future : futures) {
                future.get(30, TimeUnit.SECONDS);
            }
        } finally {
            executor.shutdownNow();
        }

        List<OutboxRecord> all = store.all();
        assertThat(all).extracting(OutboxRecord::getSequence)
                .containsExactlyElementsOf(LongStream.rangeClosed(1, (long) threads * perThread).boxed().toList());
        for (int t = 0; t < threads; t++) {
            List<String> payloads = store.findByAggregateId("agg-" + t).stream().map(OutboxRecord::getPayload)
                    .toList();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < perThread; i++) {
                expected.add(t + ":" + i);
            }
            assertThat(payloads).as("order of thread %d", t).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void statusWritesDoNotTouchThePayloadOrIdentity() {
        OutboxRecord record = record("A", "payload");
        store.save(record);
        OutboxRecord stored = store.findById(record.getId()).orElseThrow();

        store.scheduleRetry(Delivery.unfenced(stored), 1, clock.instant().plus(Duration.ofSeconds(1)), "e");
        store.markFailed(Delivery.unfenced(store.findById(record.getId()).orElseThrow()), 1, "e2");

        OutboxRecord after = store.findById(record.getId()).orElseThrow();
        assertThat(after.getPayload()).isEqualTo("payload");
        assertThat(after.getSequence()).isEqualTo(stored.getSequence());
        assertThat(after.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(after.getLastError()).isEqualTo("e2");
    }
}
