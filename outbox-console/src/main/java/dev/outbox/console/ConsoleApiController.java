package dev.outbox.console;

import static dev.outbox.console.FilterParameters.blankAsAny;

import dev.outbox.console.ConsoleOutboxes.Target;
import dev.outbox.console.ConsoleViews.FailedRecordView;
import dev.outbox.console.ConsoleViews.OperationsState;
import dev.outbox.console.ConsoleViews.Overview;
import dev.outbox.OutboxRecord;
import dev.outbox.admin.FailedRecordPage;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.spi.FailedRecordOrder;
import dev.outbox.spi.PartitionRecords;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The console's JSON under {@code {path}/api}. Reads come from the monitor's cached snapshot (or the history kept
 * from its snapshots), except the FAILED records, their count and a partition's open records, which are read from the
 * database per request; operations go through the actuator endpoint's, and so through {@link OutboxAdmin}, and are
 * logged with who asked. Every request names its outbox with {@code ?outbox=name}, or none for the default outbox.
 */
@RestController
@RequestMapping("${outbox.console.path:" + OutboxConsoleProperties.DEFAULT_PATH + "}/api")
class ConsoleApiController {

    private static final Logger log = LoggerFactory.getLogger(ConsoleApiController.class);
    /** How long a read waits for the monitor's first snapshot before answering without one. */
    private static final Duration WAIT = Duration.ofSeconds(2);
    static final int DEFAULT_LIMIT = 100;

    private final ConsoleOutboxes outboxes;
    private final ConsoleAccess access;
    private final Clock clock;

    ConsoleApiController(ConsoleOutboxes outboxes, ConsoleAccess access, Clock clock) {
        this.outboxes = outboxes;
        this.access = access;
        this.clock = clock;
    }

    /**
     * Instances, the 256 partitions, record counts and deferred records, from the cached snapshot; the departed
     * instances besides from the history's memory of instances seen live.
     */
    @GetMapping("/overview")
    ResponseEntity<?> overview(@RequestParam(required = false) @Nullable String outbox) {
        return withOutbox(outbox, target -> {
            Overview overview = ConsoleViews.overview(target.name(), outboxes.names(), target.monitor().latest(WAIT),
                    target.monitor().staleTimeout(), access.operations(), target.history().seenInstances());
            return ResponseEntity.ok(overview);
        });
    }

    /**
     * The last hour of record counts (a sample per monitor snapshot), the drain rate and the partitions claimed per
     * instance, from memory: see {@link ConsoleHistory}.
     */
    @GetMapping("/history")
    ResponseEntity<?> history(@RequestParam(required = false) @Nullable String outbox) {
        return withOutbox(outbox, target -> ResponseEntity.ok(target.history().history()));
    }

    /**
     * A page of the FAILED records matching the filter, read from the database ({@link OutboxAdmin#failedPage}), with
     * the NEW records each holds back in its lane ({@link OutboxAdmin#newBehind}; a second query, by primary key):
     * {@code order} {@code oldest} (default) or {@code newest}, {@code after} the {@code nextCursor} of the page
     * before, at most {@code limit} (1 to 1000).
     */
    @GetMapping("/failed-records")
    ResponseEntity<?> failedRecords(@RequestParam(required = false) @Nullable String outbox,
            @ModelAttribute FilterParameters filter, @RequestParam(required = false) @Nullable String order,
            @RequestParam(required = false) @Nullable String after,
            @RequestParam(defaultValue = "" + DEFAULT_LIMIT) int limit) {
        return withOutbox(outbox, target -> refusingBadInput(() -> {
            FailedRecordOrder pageOrder = order(order);
            FailedRecordPage page = target.admin().failedPage(filter.toFilter(clock), pageOrder, blankAsAny(after),
                    limit);
            Map<String, Long> newBehind = target.admin().newBehind(page.records().stream().map(OutboxRecord::getId)
                    .toList());
            List<FailedRecordView> records = ConsoleViews.failedRecords(page.rows(), pageOrder, newBehind);
            return ResponseEntity.ok(new FailedRecords(records, limit, page.nextCursor() != null,
                    page.nextCursor(), pageOrder == FailedRecordOrder.NEWEST_FIRST ? "newest" : "oldest",
                    page.searchCut()));
        }));
    }

    /**
     * How many FAILED records match the filter now, from the database: what a bulk operation would change. With the
     * bounds counted with ({@code failedWithin} and {@code createdWithin} made instants): a bulk operation given them
     * touches these records, however long the operator takes to confirm.
     */
    @GetMapping("/failed-records/count")
    ResponseEntity<?> countFailed(@RequestParam(required = false) @Nullable String outbox,
            @ModelAttribute FilterParameters filter) {
        return withOutbox(outbox, target -> refusingBadInput(() -> {
            FailedRecordFilter counted = filter.toFilter(clock);
            return ResponseEntity.ok(new FailedCount(target.admin().countFailed(counted),
                    counted.lastAttemptDueFrom(), counted.lastAttemptDueBefore(), counted.createdFrom(),
                    counted.createdBefore()));
        }));
    }

    /**
     * One partition, {@code 0} to {@code 255}: its owner and epoch from the cached snapshot, and its NEW and FAILED
     * records counted now in the database ({@link OutboxAdmin#partitionRecords}): one query per request, which the
     * page sends when a partition is clicked.
     */
    @GetMapping("/partitions/{partition}")
    ResponseEntity<?> partition(@RequestParam(required = false) @Nullable String outbox,
            @PathVariable String partition) {
        return withOutbox(outbox, target -> refusingBadInput(() -> {
            PartitionRecords records = target.admin().partitionRecords(partitionNumber(partition));
            return ResponseEntity.ok(ConsoleViews.partitionDetail(target.monitor().latest(WAIT), records));
        }));
    }

    /** Retry, skip or delete one record: {@code POST {path}/api/records/{recordId}/{action}}. */
    @PostMapping("/records/{recordId}/{action}")
    ResponseEntity<?> act(@RequestParam(required = false) @Nullable String outbox, @PathVariable String recordId,
            @PathVariable String action, HttpServletRequest request) {
        return withOutbox(outbox, target -> operate(request, target, action + " of record " + recordId,
                () -> target.endpoint().act(recordId, action)));
    }

    /**
     * Retry, skip or delete every FAILED record matching the filter: {@code POST {path}/api/retry-all},
     * {@code skip-all} or {@code delete-all}, through the actuator endpoint's {@code actOnAll}, which is given the
     * time bounds the filter means ({@code failedWithin} and {@code createdWithin} from now, or the instants a count
     * answered).
     */
    @PostMapping("/{action:retry-all|skip-all|delete-all}")
    ResponseEntity<?> actOnAll(@RequestParam(required = false) @Nullable String outbox, @PathVariable String action,
            @ModelAttribute FilterParameters filter, HttpServletRequest request) {
        return withOutbox(outbox, target -> operate(request, target, action + " of FAILED records matching "
                + filter, () -> {
                    FailedRecordFilter bounded;
                    try {
                        bounded = filter.toFilter(clock);
                    } catch (IllegalArgumentException refused) {
                        return new WebEndpointResponse<>(new ConsoleError(String.valueOf(refused.getMessage()),
                                null), 400);
                    }
                    return target.endpoint().actOnAll(action, bounded.eventType(), bounded.aggregateId(),
                            bounded.handlerId(), bounded.errorContains(), text(bounded.lastAttemptDueFrom()),
                            text(bounded.lastAttemptDueBefore()), text(bounded.createdFrom()),
                            text(bounded.createdBefore()));
                }));
    }

    private static @Nullable String text(@Nullable Instant instant) {
        return instant == null ? null : instant.toString();
    }

    private ResponseEntity<?> operate(HttpServletRequest request, Target target, String what,
            Supplier<WebEndpointResponse<Object>> operation) {
        String who = ConsoleAccess.who(request);
        String outbox = target.name() == null ? "default" : target.name();
        OperationsState state = access.operations();
        if (!state.allowed()) {
            log.warn("Outbox console: {} asked for the {} in outbox {}: refused, {}", who, what, outbox,
                    state.refusal());
            return ResponseEntity.status(403).body(new ConsoleError(String.valueOf(state.refusal()),
                    state.property()));
        }
        WebEndpointResponse<Object> response = operation.get();
        log.info("Outbox console: {} asked for the {} in outbox {}: {} {}", who, what, outbox, response.getStatus(),
                response.getBody());
        return ResponseEntity.status(response.getStatus()).body(response.getBody());
    }

    private ResponseEntity<?> withOutbox(@Nullable String name, Function<Target, ResponseEntity<?>> answer) {
        Optional<Target> target = outboxes.find(name);
        if (target.isEmpty()) {
            return ResponseEntity.status(404).body(new UnknownOutbox("no outbox is named '" + name
                    + "'; there is the default outbox (no name) and " + outboxes.names(), outboxes.names()));
        }
        return answer.apply(target.get());
    }

    private static ResponseEntity<?> refusingBadInput(Supplier<ResponseEntity<?>> answer) {
        try {
            return answer.get();
        } catch (IllegalArgumentException refused) {
            return ResponseEntity.badRequest().body(new ConsoleError(String.valueOf(refused.getMessage()), null));
        }
    }

    /** The number a path names; OutboxAdmin checks its range, naming the same parameter. */
    private static int partitionNumber(String partition) {
        if (partition.isEmpty() || partition.length() > 3 || !partition.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("partition must be a whole number between 0 and 255, not '"
                    + (partition.length() > 40 ? partition.substring(0, 40) + "…" : partition) + "'");
        }
        return Integer.parseInt(partition);
    }

    private static FailedRecordOrder order(@Nullable String order) {
        if (order == null || order.isEmpty() || order.equals("oldest")) {
            return FailedRecordOrder.OLDEST_FIRST;
        }
        if (order.equals("newest")) {
            return FailedRecordOrder.NEWEST_FIRST;
        }
        throw new IllegalArgumentException("order must be 'oldest' or 'newest', not '" + order + "'");
    }

    /**
     * @param limit the most that were asked for
     * @param truncated whether there may be more than listed
     * @param nextCursor the {@code after} of the next page; null on the last page
     * @param searchCut whether a filtered page stopped looking after {@link OutboxAdmin#EXAMINED_PER_PAGE} FAILED
     *     records before it was full; its next page looks on
     */
    record FailedRecords(List<FailedRecordView> records, int limit, boolean truncated, @Nullable String nextCursor,
            String order, boolean searchCut) {
    }

    /**
     * @param lastAttemptDueFrom the lower bound on the last attempt counted with, if any: pass it to the bulk
     *     operation
     * @param lastAttemptDueBefore the upper one, if any
     * @param createdFrom the lower bound on the creation time counted with, if any: pass it to the bulk operation
     * @param createdBefore the upper one, if any
     */
    record FailedCount(long count, @Nullable Instant lastAttemptDueFrom, @Nullable Instant lastAttemptDueBefore,
            @Nullable Instant createdFrom, @Nullable Instant createdBefore) {
    }

    /** Why a request was refused; {@code property} names the setting that would allow it, if one would. */
    record ConsoleError(String error, @Nullable String property) {
    }

    record UnknownOutbox(String error, List<String> outboxes) {
    }
}
