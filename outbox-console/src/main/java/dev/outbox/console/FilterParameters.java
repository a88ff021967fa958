package dev.outbox.console;

import dev.outbox.boot.actuate.TimeBound;
import dev.outbox.spi.FailedRecordFilter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.jspecify.annotations.Nullable;

/**
 * The FAILED-record filter as the page sends it, one request parameter a field; an empty field means any value.
 *
 * @param errorContains text the last error contains, without regard to case
 * @param failedWithin an ISO-8601 duration such as {@code PT1H} or {@code P1D}: the last attempt fell due within it
 *         before now ({@link FailedRecordFilter#lastAttemptDueBetween})
 * @param lastAttemptDueFrom an ISO-8601 instant: the last attempt fell due at or after it; what a count answered for
 *         {@code failedWithin}, so that the bulk operation confirmed touches the records counted, not a later window
 * @param lastAttemptDueBefore an ISO-8601 instant: the last attempt fell due before it
 */
record FilterParameters(@Nullable String handlerId, @Nullable String eventType, @Nullable String aggregateId,
        @Nullable String errorContains, @Nullable String failedWithin, @Nullable String lastAttemptDueFrom,
        @Nullable String lastAttemptDueBefore) {

    /**
     * The filter at {@code clock}'s now; a {@code failedWithin} that is no positive duration, a bound that is no
     * instant or a range that holds none (checked as the actuator checks them: {@link TimeBound}), or
     * {@code failedWithin} with {@code lastAttemptDueFrom} (two lower bounds) is refused.
     */
    FailedRecordFilter toFilter(Clock clock) {
        FailedRecordFilter filter = FailedRecordFilter.any().withHandlerId(blankAsAny(handlerId))
                .withEventType(blankAsAny(eventType)).withAggregateId(blankAsAny(aggregateId))
                .withErrorContaining(blankAsAny(errorContains));
        Instant from = TimeBound.parse("lastAttemptDueFrom", lastAttemptDueFrom);
        Instant before = TimeBound.parse("lastAttemptDueBefore", lastAttemptDueBefore);
        TimeBound.checkRange(from, "lastAttemptDueFrom", before, "lastAttemptDueBefore");
        String within = blankAsAny(failedWithin);
        if (within == null) {
            return filter.lastAttemptDueBetween(from, before);
        }
        if (from != null) {
            throw new IllegalArgumentException("failedWithin and lastAttemptDueFrom both bound the last attempt from "
                    + "below: give one of them");
        }
        Duration age;
        try {
            age = Duration.parse(within);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("failedWithin must be an ISO-8601 duration such as PT1H or P1D, not '"
                    + within + "'");
        }
        if (age.isNegative() || age.isZero()) {
            throw new IllegalArgumentException("failedWithin must be positive, not " + within);
        }
        return filter.lastAttemptDueBetween(clock.instant().minus(age), before);
    }

    static @Nullable String blankAsAny(@Nullable String value) {
        return value == null || value.isBlank() ? null : value;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        append(text, "handlerId", handlerId);
        append(text, "eventType", eventType);
        append(text, "aggregateId", aggregateId);
        append(text, "errorContains", errorContains);
        append(text, "failedWithin", failedWithin);
        append(text, "lastAttemptDueFrom", lastAttemptDueFrom);
        append(text, "lastAttemptDueBefore", lastAttemptDueBefore);
        return text.isEmpty() ? "no filter" : text.toString();
    }

    private static void append(StringBuilder text, String name, @Nullable String value) {
        if (blankAsAny(value) != null) {
            text.append(text.isEmpty() ? "" : ", ").append(name).append('=').append(value);
        }
    }
}
