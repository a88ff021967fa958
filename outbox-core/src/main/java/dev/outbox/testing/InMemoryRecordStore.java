package dev.outbox.testing;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.spi.DeferredRecordsQuery;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.spi.FailedRecordOrder;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.PartitionBacklog;
import dev.outbox.spi.RecordAdministration;
import dev.outbox.spi.RecordPurge;
import dev.outbox.spi.RecordStatistics;
import dev.outbox.spi.RecordStore;
import dev.outbox.spi.RecordTransactions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A thread-safe in-memory outbox table, for unit tests of handlers and of the engine without a database. Follows the
 * same contract as the database stores (the shared contract tests run against it): a status write applies only while
 * the record is {@code NEW} with the retry count it was read with, and, for a fenced delivery, while the partition
 * table of its {@link InMemoryClusterStore} names the delivery's owner under its epoch.
 *
 * <p>It offers {@linkplain #inTransaction transactions} too, for transactional handlers: what a handler saves through
 * the store inside one (its "database effect") vanishes with the transaction's status writes when it rolls back.
 */
public final class InMemoryRecordStore implements RecordStore, OutboxRecordRepository, RecordStatistics,
        RecordPurge, RecordAdministration, RecordTransactions {

    private final Map<String, OutboxRecord> records = new LinkedHashMap<>();
    private final int maxPayloadBytes;
    private final @Nullable InMemoryClusterStore partitions;
    private long nextSequence = 1;

    /** A store for a single instance: it takes unfenced writes only. */
    public InMemoryRecordStore() {
        this(OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES, null);
    }

    /** As {@link #InMemoryRecordStore()}, with a payload limit in UTF-8 bytes. */
    public InMemoryRecordStore(int maxPayloadBytes) {
        this(maxPayloadBytes, null);
    }

    /** A store whose fenced writes are checked against the partition table of {@code cluster}. */
    public InMemoryRecordStore(InMemoryClusterStore cluster) {
        this(OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES, Objects.requireNonNull(cluster, "cluster"));
    }

    private InMemoryRecordStore(int maxPayloadBytes, @Nullable InMemoryClusterStore partitions) {
        this.maxPayloadBytes = OutboxRecord.checkPayloadLimit(maxPayloadBytes);
        this.partitions = partitions;
    }

    @Override
    public synchronized OutboxRecord save(OutboxRecord record) {
        Objects.requireNonNull(record, "record must not be null");
        OutboxRecord.checkPayloadSize(record.getPayload(), maxPayloadBytes);
        if (records.containsKey(record.getId())) {
            throw new IllegalArgumentException("a record with id " + record.getId() + " exists already");
        }
        records.put(record.getId(), record.toBuilder().sequence(nextSequence++).build());
        return record;
    }

    /**
     * Runs {@code work} holding this store's lock throughout, so transactions are serialized and every other thread's
     * call waits for the end of one: there is no isolation short of that. When the work throws, the records are put
     * back as they were before it (saved ones removed, changed and deleted ones restored) and the throw passed on.
     * Sequences handed out meanwhile are not given back, as a database's are not.
     */
    @Override
    public synchronized void inTransaction(Runnable work) {
        Map<String, OutboxRecord> before = new LinkedHashMap<>(records);
        try {
            work.run();
        } catch (RuntimeException | Error e) {
            records.clear();
            records.putAll(before);
            throw e;
        }
    }

    @Override
    public synchronized OptionalLong highestAssignedSequence() {
        return nextSequence == 1 ? OptionalLong.empty() : OptionalLong.of(nextSequence - 1);
    }

    @Override
    public synchronized Optional<OutboxRecord> findById(String id) {
        return Optional.ofNullable(records.get(id));
    }

    @Override
    public synchronized List<OutboxRecord> findByAggregateId(String aggregateId) {
        return records.values().stream().filter(r -> r.getAggregateId().equals(aggregateId))
                .sorted(bySequence()).toList();
    }

    @Override
    public synchronized List<OutboxRecord> findByStatus(OutboxRecordStatus status, int limit) {
        return records.values().stream().filter(r -> r.getStatus() == status).sorted(bySequence()).limit(limit)
                .toList();
    }

    @Override
    public synchronized long countByStatus(OutboxRecordStatus status) {
        return records.values().stream().filter(r -> r.getStatus() == status).count();
    }

    @Override
    public synchronized List<OutboxRecord> findFailed(FailedRecordFilter filter, int limit) {
        return failed(filter).stream().limit(limit).toList();
    }

    @Override
    public synchronized boolean retryFailed(String id, Instant now) {
        return changeFailed(id, r -> r.toBuilder().status(OutboxRecordStatus.NEW).retryCount(0).nextRetryAt(now)
                .firstDeferredAt(null).build());
    }

    @Override
    public synchronized int retryAllFailed(FailedRecordFilter filter, Instant now) {
        List<OutboxRecord> matching = failed(filter);
        matching.forEach(r -> retryFailed(r.getId(), now));
        return matching.size();
    }

    @Override
    public synchronized boolean skipFailed(String id, Instant now) {
        return changeFailed(id, r -> r.toBuilder().status(OutboxRecordStatus.SKIPPED).completedAt(now).build());
    }

    @Override
    public synchronized boolean deleteFailed(String id) {
        OutboxRecord record = records.get(id);
        boolean deletable = record != null && (record.getStatus() == OutboxRecordStatus.FAILED
                || record.getStatus() == OutboxRecordStatus.SKIPPED);
        return deletable && records.remove(id) != null;
    }

    @Override
    public synchronized FetchedRows findFailedPage(FailedRecordFilter filter, FailedRecordOrder order,
            @Nullable Long afterSequence, @Nullable Long throughSequence, int limit) {
        return FailedRecordReads.page(records.values(), filter, order, afterSequence, throughSequence, limit);
    }

    @Override
    public synchronized @Nullable Long failedSequenceAfter(FailedRecordOrder order, @Nullable Long after, int n) {
        return FailedRecordReads.sequenceAfter(records.values(), order, after, n);
    }

    @Override
    public synchronized long countFailed(FailedRecordFilter filter) {
        return failed(filter).size();
    }

    @Override
    public synchronized int skipAllFailed(FailedRecordFilter filter, Instant now) {
        return (int) failed(filter).stream().filter(r -> skipFailed(r.getId(), now)).count();
    }

    @Override
    public synchronized int deleteAllFailed(FailedRecordFilter filter) {
        return (int) failed(filter).stream().filter(r -> records.remove(r.getId()) != null).count();
    }

    @Override
    public synchronized Map<String, Long> countNewBehind(Collection<String> failedIds) {
        return FailedRecordReads.newBehind(records, failedIds);
    }

    private List<OutboxRecord> failed(FailedRecordFilter filter) {
        return FailedRecordReads.matching(records.values(), filter);
    }

    private boolean changeFailed(String id, UnaryOperator<OutboxRecord> change) {
        OutboxRecord record = records.get(id);
        if (record == null || record.getStatus() != OutboxRecordStatus.FAILED) {
            return false;
        }
        records.put(id, change.apply(record));
        return true;
    }

    @Override
    public synchronized int purge(OwnedPartitions partitions, OutboxRecordStatus status, Instant createdBefore,
            int limit) {
        if (status == OutboxRecordStatus.NEW) {
            throw new IllegalArgumentException("NEW records are never purged");
        }
        List<String> ids = records.values().stream()
                .filter(r -> r.getStatus() == status && r.getCreatedAt().isBefore(createdBefore)
                        && partitions.contains(r.getPartition()))
                .sorted(bySequence()).limit(limit).map(OutboxRecord::getId).toList();
        ids.forEach(records::remove);
        return ids.size();
    }

    @Override
    public synchronized Map<OutboxRecordStatus, Long> countByStatus() {
        return records.values().stream()
                .collect(Collectors.groupingBy(OutboxRecord::getStatus, Collectors.counting()));
    }

    @Override
    public synchronized List<PartitionBacklog> pendingByPartitionAndHandler() {
        Map<List<Object>, List<OutboxRecord>> groups = new LinkedHashMap<>();
        records.values().stream().filter(r -> r.getStatus() == OutboxRecordStatus.NEW)
                .forEach(r -> groups.computeIfAbsent(Arrays.asList(r.getPartition(), r.getHandlerId()),
                        key -> new ArrayList<>()).add(r));
        return groups.values().stream().map(group -> new PartitionBacklog(group.get(0).getPartition(),
                group.get(0).getHandlerId(), group.size(), group.stream().map(OutboxRecord::getCreatedAt)
                        .min(Instant::compareTo).orElseThrow())).toList();
    }

    /** Every record, in sequence order. */
    public synchronized List<OutboxRecord> all() {
        return records.values().stream().sorted(bySequence()).toList();
    }

    /** Below the fetch's floor: left out; if open, it holds back the later records of its lane. */
    private static boolean belowFloor(OutboxRecord record, @Nullable Long fromSequence) {
        Long sequence = record.getSequence();
        return fromSequence != null && sequence != null && sequence < fromSequence;
    }

    @Override
    public synchronized FetchedRows findDue(DueRecordsQuery query) {
        // Order holds per lane: one aggregate's records for one handler.
        Set<List<@Nullable String>> heldBack = new HashSet<>();
        List<OutboxRecord> due = new ArrayList<>();
        for (OutboxRecord record : all()) {
            Long sequence = record.getSequence();
            if (query.toSequence() != null && sequence != null && sequence >= query.toSequence()) {
                break; // in sequence order: the rest lie above the stretch read
            }
            if (!query.partitions().contains(record.getPartition())
                    || query.setAside().contains(handlerKey(record))) {
                continue;
            }
            boolean isDue = record.getStatus() == OutboxRecordStatus.NEW
                    && !record.getNextRetryAt().isAfter(query.now());
            if (query.headOfAggregateOnly()) {
                List<@Nullable String> lane = Arrays.asList(record.getAggregateId(), record.getHandlerId());
                if (heldBack.contains(lane)) {
                    continue;
                }
                // below the floor even a due record holds its lane back: the fetch does not return it
                boolean holdsBack = record.getStatus() == OutboxRecordStatus.FAILED
                        || record.getStatus() == OutboxRecordStatus.NEW
                                && (!isDue || belowFloor(record, query.fromSequence()));
                if (holdsBack) {
                    heldBack.add(lane);
                    continue;
                }
            }
            if (isDue && !belowFloor(record, query.fromSequence())) {
                due.add(record);
                if (due.size() == query.limit()) {
                    break;
                }
            }
        }
        return FetchedRows.of(due);
    }

    @Override
    public synchronized FetchedRows findDeferralsDue(DeferredRecordsQuery query) {
        // Only a lane's first open record qualifies under head-of-aggregate: the records behind it wait for it.
        Set<List<@Nullable String>> headSeen = new HashSet<>();
        List<OutboxRecord> due = new ArrayList<>();
        for (OutboxRecord record : all()) {
            if (!query.partitions().contains(record.getPartition())
                    || !query.handlerIds().contains(handlerKey(record))) {
                continue;
            }
            boolean open = record.getStatus() == OutboxRecordStatus.NEW
                    || record.getStatus() == OutboxRecordStatus.FAILED;
            if (query.headOfAggregateOnly() && open
                    && !headSeen.add(Arrays.asList(record.getAggregateId(), record.getHandlerId()))) {
                continue;
            }
            Instant firstDeferredAt = record.getFirstDeferredAt();
            if (record.getStatus() == OutboxRecordStatus.NEW && !record.getNextRetryAt().isAfter(query.now())
                    && (firstDeferredAt == null || !firstDeferredAt.isAfter(query.maxDeferralCutoff()))) {
                due.add(record);
                if (due.size() == query.limit()) {
                    break;
                }
            }
        }
        return FetchedRows.of(due);
    }

    /** The handler id as the column stores it: empty for records addressed to no handler. */
    private static String handlerKey(OutboxRecord record) {
        return record.getHandlerId() == null ? "" : record.getHandlerId();
    }

    @Override
    public synchronized List<Delivery> markCompleted(List<Delivery> deliveries, Instant completedAt) {
        return deliveries.stream().filter(delivery -> !updateIfCurrent(delivery,
                b -> b.status(OutboxRecordStatus.COMPLETED).completedAt(completedAt).firstDeferredAt(null))).toList();
    }

    @Override
    public synchronized List<Delivery> deleteCompleted(List<Delivery> deliveries) {
        List<Delivery> notDeleted = new ArrayList<>();
        for (Delivery delivery : deliveries) {
            if (current(delivery) == null) {
                notDeleted.add(delivery);
            } else {
                records.remove(delivery.id());
            }
        }
        return notDeleted;
    }

    @Override
    public synchronized boolean scheduleRetry(Delivery delivery, int retryCount, Instant nextRetryAt,
            String lastError) {
        return updateIfCurrent(delivery, b -> b.retryCount(retryCount).nextRetryAt(nextRetryAt).lastError(lastError)
                .firstDeferredAt(null));
    }

    @Override
    public synchronized boolean defer(Delivery delivery, Instant nextAttemptAt, String lastError,
            Instant deferredAt) {
        OutboxRecord current = current(delivery);
        if (current == null) {
            return false;
        }
        Instant first = current.getFirstDeferredAt() == null ? deferredAt : current.getFirstDeferredAt();
        records.put(current.getId(), current.toBuilder().nextRetryAt(nextAttemptAt).lastError(lastError)
                .firstDeferredAt(first).build());
        return true;
    }

    @Override
    public synchronized boolean markFailed(Delivery delivery, int retryCount, String lastError) {
        return updateIfCurrent(delivery,
                b -> b.status(OutboxRecordStatus.FAILED).retryCount(retryCount).lastError(lastError));
    }

    private boolean updateIfCurrent(Delivery delivery, UnaryOperator<OutboxRecord.RestoreBuilder> change) {
        OutboxRecord current = current(delivery);
        if (current == null) {
            return false;
        }
        records.put(current.getId(), change.apply(current.toBuilder()).build());
        return true;
    }

    /**
     * The stored record if it is still NEW with the retry count it was read with and the delivery's fence holds,
     * else null.
     */
    private @Nullable OutboxRecord current(Delivery delivery) {
        OutboxRecord current = records.get(delivery.id());
        boolean unchanged = current != null && current.getStatus() == OutboxRecordStatus.NEW
                && current.getRetryCount() == delivery.record().getRetryCount();
        return unchanged && fenceHolds(delivery.fence()) ? current : null;
    }

    private boolean fenceHolds(Fence fence) {
        if (!fence.isFenced()) {
            return true;
        }
        if (partitions == null) {
            throw new IllegalStateException("a write under the fence of " + fence + ", but this store has no "
                    + "partition table to check it against; create it with new InMemoryRecordStore(clusterStore)");
        }
        return partitions.holds(fence);
    }

    private static Comparator<OutboxRecord> bySequence() {
        return FailedRecordReads.bySequence();
    }
}
