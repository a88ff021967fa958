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
 * @param createdWithin an ISO-8601 duration: the record was created within it before now
 *         ({@link FailedRecordFilter#createdBetween}), its age
 * @param createdFrom an ISO-8601 instant: the record was created at or after it; what a count answered for
 *         {@code createdWithin}, as {@code lastAttemptDueFrom} is for {@code failedWithin}
 * @param createdBefore an ISO-8601 instant: the record was created before it
 */
record FilterParameters(@Nullable String handlerId, @Nullable String eventType, @Nullable String aggregateId,
        @Nullable String errorContains, @Nullable String failedWithin, @Nullable String lastAttemptDueFrom,
        @Nullable String lastAttemptDueBefore, @Nullable String createdWithin, @Nullable String createdFrom,
        @Nullable String createdBefore) {

    /**
     * The filter at {@code clock}'s now; a {@code failedWithin} or {@code createdWithin} that is no positive
     * duration, a bound that is no instant or a range that holds none (checked as the actuator checks them:
     * {@link TimeBound}), or a duration with the lower bound of the same time ({@code failedWithin} with
     * {@code lastAttemptDueFrom}, {@code createdWithin} with {@code createdFrom}: two lower bounds) is refused.
     */
    FailedRecordFilter toFilter(Clock clock) {
        Window lastAttempt = Window.of(clock, "failedWithin", failedWithin, "lastAttemptDueFrom", lastAttemptDueFrom,
                "lastAttemptDueBefore", lastAttemptDueBefore, "the last attempt");
        Window created = Window.of(clock, "createdWithin", createdWithin, "createdFrom", createdFrom, "createdBefore",
                createdBefore, "the creation time");
        return FailedRecordFilter.any().withHandlerId(blankAsAny(handlerId))
                .withEventType(blankAsAny(eventType)).withAggregateId(blankAsAny(aggregateId))
                .withErrorContaining(blankAsAny(errorContains))
                .lastAttemptDueBetween(lastAttempt.from(), lastAttempt.before())
                .createdBetween(created.from(), created.before());
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
        append(text, "createdWithin", createdWithin);
        append(text, "createdFrom", createdFrom);
        append(text, "createdBefore", createdBefore);
        return text.isEmpty() ? "no filter" : text.toString();
    }

    private static void append(StringBuilder text, String name, @Nullable String value) {
        if (blankAsAny(value) != null) {
            text.append(text.isEmpty() ? "" : ", ").append(name).append('=').append(value);
        }
    }

    /** Bounds on one time of a record: at or after {@code from}, before {@code before}; null for none. */
    private record Window(@Nullable Instant from, @Nullable Instant before) {

        /**
         * The bounds the parameters mean: the instants given, or for a duration {@code within} the time that long
         * before now as the lower one.
         */
        static Window of(Clock clock, String withinName, @Nullable String within, String fromName,
                @Nullable String from, String beforeName, @Nullable String before, String what) {
            Instant lower = TimeBound.parse(fromName, from);
            Instant upper = TimeBound.parse(beforeName, before);
            TimeBound.checkRange(lower, fromName, upper, beforeName);
            String age = blankAsAny(within);
            if (age == null) {
                return new Window(lower, upper);
            }
            if (lower != null) {
                throw new IllegalArgumentException(withinName + " and " + fromName + " both bound " + what
                        + " from below: give one of them");
            }
            Duration duration;
            try {
                duration = Duration.parse(age);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(withinName + " must be an ISO-8601 duration such as PT1H or P1D, "
                        + "not '" + age + "'");
            }
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException(withinName + " must be positive, not " + age);
            }
            return new Window(clock.instant().minus(duration), upper);
        }
    }
}
