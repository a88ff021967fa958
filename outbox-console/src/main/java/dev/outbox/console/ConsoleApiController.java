package dev.outbox.console;

import dev.outbox.console.ConsoleOutboxes.Target;
import dev.outbox.console.ConsoleViews.FailedRecordView;
import dev.outbox.console.ConsoleViews.OperationsState;
import dev.outbox.console.ConsoleViews.Overview;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.spi.FetchedRows;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The console's JSON under {@code {path}/api}. Reads come from the monitor's cached snapshot, except the FAILED
 * records, which are one query per request; operations go through the actuator endpoint's, and so through
 * {@link dev.outbox.admin.OutboxAdmin}, and are logged with who asked. Every request names its outbox with
 * {@code ?outbox=name}, or none for the default outbox.
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

    ConsoleApiController(ConsoleOutboxes outboxes, ConsoleAccess access) {
        this.outboxes = outboxes;
        this.access = access;
    }

    /** Instances, the 256 partitions, record counts and deferred records, from the cached snapshot. */
    @GetMapping("/overview")
    ResponseEntity<?> overview(@RequestParam(required = false) @Nullable String outbox) {
        return withOutbox(outbox, target -> {
            Overview overview = ConsoleViews.overview(target.name(), outboxes.names(), target.monitor().latest(WAIT),
                    target.monitor().staleTimeout(), access.operations());
            return ResponseEntity.ok(overview);
        });
    }

    /** FAILED records matching the filter, oldest first, at most {@code limit} (1 to 1000). */
    @GetMapping("/failed-records")
    ResponseEntity<?> failedRecords(@RequestParam(required = false) @Nullable String outbox,
            @RequestParam(required = false) @Nullable String handlerId,
            @RequestParam(required = false) @Nullable String eventType,
            @RequestParam(required = false) @Nullable String aggregateId,
            @RequestParam(defaultValue = "" + DEFAULT_LIMIT) int limit) {
        return withOutbox(outbox, target -> {
            try {
                FetchedRows rows = target.admin().failedRows(filter(handlerId, eventType, aggregateId), limit);
                List<FailedRecordView> records = ConsoleViews.failedRecords(rows);
                return ResponseEntity.ok(new FailedRecords(records, limit, records.size() >= limit));
            } catch (IllegalArgumentException refused) {
                return ResponseEntity.badRequest().body(new ConsoleError(String.valueOf(refused.getMessage()), null));
            }
        });
    }

    /** Retry, skip or delete one record: {@code POST {path}/api/records/{recordId}/{action}}. */
    @PostMapping("/records/{recordId}/{action}")
    ResponseEntity<?> act(@RequestParam(required = false) @Nullable String outbox, @PathVariable String recordId,
            @PathVariable String action, HttpServletRequest request) {
        return withOutbox(outbox, target -> operate(request, target, action + " of record " + recordId,
                () -> target.endpoint().act(recordId, action)));
    }

    /** Retry every FAILED record matching the filter: {@code POST {path}/api/retry-all}. */
    @PostMapping("/retry-all")
    ResponseEntity<?> retryAll(@RequestParam(required = false) @Nullable String outbox,
            @RequestParam(required = false) @Nullable String handlerId,
            @RequestParam(required = false) @Nullable String eventType,
            @RequestParam(required = false) @Nullable String aggregateId, HttpServletRequest request) {
        return withOutbox(outbox, target -> {
            FailedRecordFilter filter = filter(handlerId, eventType, aggregateId);
            return operate(request, target, "retry of FAILED records matching " + filter,
                    () -> target.endpoint().actOnAll("retry-all", filter.eventType(), filter.aggregateId(),
                            filter.handlerId()));
        });
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

    /** An empty form field means any value. */
    private static FailedRecordFilter filter(@Nullable String handlerId, @Nullable String eventType,
            @Nullable String aggregateId) {
        return FailedRecordFilter.any().withHandlerId(blankAsAny(handlerId)).withEventType(blankAsAny(eventType))
                .withAggregateId(blankAsAny(aggregateId));
    }

    private static @Nullable String blankAsAny(@Nullable String value) {
        return value == null || value.isEmpty() ? null : value;
    }

    /**
     * @param limit the most that were asked for
     * @param truncated whether there may be more than listed
     */
    record FailedRecords(List<FailedRecordView> records, int limit, boolean truncated) {
    }

    /** Why a request was refused; {@code property} names the setting that would allow it, if one would. */
    record ConsoleError(String error, @Nullable String property) {
    }

    record UnknownOutbox(String error, List<String> outboxes) {
    }
}
