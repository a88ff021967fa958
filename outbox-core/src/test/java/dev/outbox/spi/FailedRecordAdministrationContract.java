package dev.outbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.admin.FailedRecordPage;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * What the operator console needs of every store, through {@link OutboxAdmin}: the filters, keyset pages, counts and
 * bulk actions on FAILED records. Run against the in-memory store here and the databases in their modules (shipped
 * in the test-jar). Subclasses guarantee an empty store before each test.
 */
public abstract class FailedRecordAdministrationContract {

    /** A whole second plus microseconds, so that lost sub-second precision shows. */
    private final MutableClock clock = new MutableClock(
            Instant.now().truncatedTo(ChronoUnit.SECONDS).plus(654_321, ChronoUnit.MICROS));
    private final Instant start = clock.instant();

    protected abstract RecordStore recordStore();

    protected abstract OutboxRecordRepository repository();

    /** The operator side of the same store; by default the record store itself. */
    protected RecordAdministration administration() {
        return (RecordAdministration) recordStore();
    }

    private OutboxAdmin admin() {
        return OutboxAdmin.builder().store(administration()).clock(clock).build();
    }

    // ================================================================ filters

    @Test
    public final void eachCriterionSelectsOnlyTheFailedRecordsItNames() {
        OutboxRecord broker = failed(save("A", "T1", "h1"), "java.io.IOException: Broker DOWN", hours(1));
        OutboxRecord percent = failed(save("B", "T2", "h2"), "IllegalStateException: 50% off_limit", hours(2));
        OutboxRecord bang = failed(save("A", "T2", null), "gave up!", null);
        OutboxRecord waiting = save("A", "T1", "h1");
        assertThat(recordStore().scheduleRetry(Delivery.unfenced(stored(waiting)), 1, start.plus(hours(1)),
                "java.io.IOException: broker down")).isTrue();
        completed(save("A", "T1", "h1"));

        Map<String, FailedRecordFilter> filters = Map.of(
                "errorContains broker down", FailedRecordFilter.any().withErrorContaining("broker down"),
                "errorContains BROKER", FailedRecordFilter.any().withErrorContaining("BROKER"),
                "errorContains %", FailedRecordFilter.any().withErrorContaining("%"),
                "errorContains _", FailedRecordFilter.any().withErrorContaining("f_l"),
                "errorContains !", FailedRecordFilter.any().withErrorContaining("!"),
                "errorContains absent", FailedRecordFilter.any().withErrorContaining("timeout"),
                "lastAttemptDue from 90 min", FailedRecordFilter.any().lastAttemptDueBetween(start.plus(minutes(90)),
                        null),
                "lastAttemptDue before 90 min", FailedRecordFilter.any().lastAttemptDueBetween(null,
                        start.plus(minutes(90))),
                "lastAttemptDue from 1 h before 2 h", FailedRecordFilter.any().lastAttemptDueBetween(
                        start.plus(hours(1)), start.plus(hours(2))),
                "handler and event type", FailedRecordFilter.any().withHandlerId("h2").withEventType("T2"));
        Map<String, List<String>> expected = Map.of(
                "errorContains broker down", ids(broker),
                "errorContains BROKER", ids(broker),
                "errorContains %", ids(percent),
                "errorContains _", ids(percent),
                "errorContains !", ids(bang),
                "errorContains absent", List.of(),
                "lastAttemptDue from 90 min", ids(percent),
                "lastAttemptDue before 90 min", ids(broker, bang),
                "lastAttemptDue from 1 h before 2 h", ids(broker),
                "handler and event type", ids(percent));

        Map<String, List<String>> found = filters.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                entry -> idsOf(admin().failedPage(entry.getValue(), FailedRecordOrder.OLDEST_FIRST, null, 100))));
        Map<String, Long> counted = filters.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                entry -> admin().countFailed(entry.getValue())));

        assertThat(found).isEqualTo(expected);
        assertThat(counted).isEqualTo(expected.entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, entry -> (long) entry.getValue().size())));
        assertThat(admin().countFailed(FailedRecordFilter.any())).as("NEW and COMPLETED are not counted").isEqualTo(3);
        assertThat(admin().failedRecords(FailedRecordFilter.any().withErrorContaining("down"), 10))
                .extracting(OutboxRecord::getId).containsExactly(broker.getId());
    }

    @Test
    public final void creationBoundsSelectPagesCountsAndBulkActions() {
        // a clock of its own: some stores run their tests on one instance, and the shared clock must not jump hours
        MutableClock creation = new MutableClock(start.minus(hours(5)));
        OutboxRecord early = failed(save("A", "T", "h1", creation), "gave up", null);
        creation.advance(hours(2));
        OutboxRecord middle = failed(save("B", "T", "h1", creation), "gave up", null);
        creation.advance(hours(2));
        OutboxRecord late = failed(save("C", "T", "h1", creation), "gave up", null);
        Instant middleCreated = middle.getCreatedAt();
        FailedRecordFilter fromMiddle = FailedRecordFilter.any().createdBetween(middleCreated, null);
        FailedRecordFilter beforeMiddle = FailedRecordFilter.any().createdBetween(null, middleCreated);
        FailedRecordFilter aroundMiddle = FailedRecordFilter.any().createdBetween(middleCreated.minus(hours(1)),
                middleCreated.plus(hours(1)));

        assertThat(idsOf(admin().failedPage(fromMiddle, FailedRecordOrder.OLDEST_FIRST, null, 10)))
                .as("created at the lower bound or after").isEqualTo(ids(middle, late));
        assertThat(idsOf(admin().failedPage(beforeMiddle, FailedRecordOrder.NEWEST_FIRST, null, 10)))
                .as("created before the upper bound").isEqualTo(ids(early));
        assertThat(idsOf(admin().failedPage(aroundMiddle, FailedRecordOrder.OLDEST_FIRST, null, 10)))
                .isEqualTo(ids(middle));
        assertThat(List.of(admin().countFailed(fromMiddle), admin().countFailed(beforeMiddle),
                admin().countFailed(aroundMiddle))).containsExactly(2L, 1L, 1L);

        assertThat(admin().retryAll(aroundMiddle)).isEqualTo(1);
        assertThat(status(middle)).contains(OutboxRecordStatus.NEW);
        assertThat(status(early)).contains(OutboxRecordStatus.FAILED);
        assertThat(status(late)).contains(OutboxRecordStatus.FAILED);
        assertThat(admin().skipAll(beforeMiddle)).isEqualTo(1);
        assertThat(status(early)).contains(OutboxRecordStatus.SKIPPED);
        assertThat(admin().deleteAll(fromMiddle)).as("the NEW one is not FAILED").isEqualTo(1);
        assertThat(status(late)).isEmpty();
        assertThat(status(middle)).contains(OutboxRecordStatus.NEW);
    }

    // ================================================================ pages

    @Test
    public final void pagesCoverEveryFailedRecordOnceInAStableOrderBothWays() {
        List<String> failedIds = new ArrayList<>();
        for (int i = 0; i < 23; i++) {
            failedIds.add(failed(save("agg-" + (i % 4), "T", null), "gave up " + i, null).getId());
            save("agg-" + (i % 4), "T", null); // NEW, between the FAILED ones
            if (i % 3 == 0) {
                completed(save("agg-" + i, "T", null));
            }
        }

        List<FailedRecordPage> oldestFirst = allPages(FailedRecordFilter.any(), FailedRecordOrder.OLDEST_FIRST, 5);
        List<FailedRecordPage> newestFirst = allPages(FailedRecordFilter.any(), FailedRecordOrder.NEWEST_FIRST, 5);

        assertThat(oldestFirst).extracting(page -> page.records().size()).containsExactly(5, 5, 5, 5, 3);
        assertThat(oldestFirst.stream().flatMap(page -> idsOf(page).stream()).toList()).isEqualTo(failedIds);
        assertThat(newestFirst.stream().flatMap(page -> idsOf(page).stream()).toList())
                .isEqualTo(reversed(failedIds));
        assertThat(oldestFirst.get(4).nextCursor()).as("a short page is the last").isNull();
        assertThat(oldestFirst.get(0).records()).extracting(OutboxRecord::getStatus)
                .containsOnly(OutboxRecordStatus.FAILED);

        String cursor = oldestFirst.get(1).nextCursor();
        assertThat(idsOf(admin().failedPage(FailedRecordFilter.any(), FailedRecordOrder.OLDEST_FIRST, cursor, 5)))
                .as("a cursor gives the same page again").isEqualTo(idsOf(oldestFirst.get(2)));
    }

    @Test
    public final void aFullLastPageGivesACursorWhosePageIsEmptyAndFiltersPageToo() {
        List<String> h1 = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            OutboxRecord record = failed(save("agg-" + i, "T", i % 2 == 0 ? "h1" : "h2"), "gave up", null);
            if (i % 2 == 0) {
                h1.add(record.getId());
            }
        }
        FailedRecordFilter onlyH1 = FailedRecordFilter.any().withHandlerId("h1");

        List<FailedRecordPage> pages = allPages(onlyH1, FailedRecordOrder.NEWEST_FIRST, 3);

        assertThat(pages).extracting(page -> page.records().size()).containsExactly(3, 3, 0);
        assertThat(pages.get(1).nextCursor()).isNotNull();
        assertThat(pages.get(2).nextCursor()).isNull();
        assertThat(pages.stream().flatMap(page -> idsOf(page).stream()).toList()).isEqualTo(reversed(h1));
        assertThat(admin().countFailed(onlyH1)).isEqualTo(6);
    }

    // ================================================================ bulk actions

    @Test
    public final void skipAllAndDeleteAllChangeOnlyTheMatchingFailedRecords() {
        OutboxRecord match1 = failed(save("A", "T", "h1"), "java.io.IOException: broker down", null);
        OutboxRecord match2 = failed(save("B", "T", "h1"), "java.io.IOException: Broker Down", null);
        OutboxRecord otherError = failed(save("C", "T", "h1"), "java.lang.IllegalStateException: bad", null);
        OutboxRecord otherHandler = failed(save("D", "T", "h2"), "java.io.IOException: broker down", null);
        OutboxRecord fresh = save("E", "T", "h1");
        OutboxRecord done = completed(save("F", "T", "h1"));
        FailedRecordFilter filter = FailedRecordFilter.any().withHandlerId("h1").withErrorContaining("broker");

        assertThat(admin().countFailed(filter)).isEqualTo(2);
        assertThat(admin().skipAll(filter)).isEqualTo(2);
        assertThat(admin().skipAll(filter)).as("SKIPPED ones are not FAILED").isZero();
        assertThat(admin().countFailed(filter)).isZero();

        assertThat(status(match1)).contains(OutboxRecordStatus.SKIPPED);
        assertThat(status(match2)).contains(OutboxRecordStatus.SKIPPED);
        assertThat(stored(match1).getCompletedAt()).isEqualTo(clock.instant());
        assertThat(status(otherError)).contains(OutboxRecordStatus.FAILED);
        assertThat(status(otherHandler)).contains(OutboxRecordStatus.FAILED);
        assertThat(status(fresh)).contains(OutboxRecordStatus.NEW);
        assertThat(status(done)).contains(OutboxRecordStatus.COMPLETED);

        FailedRecordFilter anyBroker = FailedRecordFilter.any().withErrorContaining("BROKER");
        assertThat(admin().deleteAll(anyBroker)).as("the FAILED one of h2; SKIPPED ones stay").isEqualTo(1);
        assertThat(status(otherHandler)).isEmpty();
        assertThat(status(match1)).contains(OutboxRecordStatus.SKIPPED);
        assertThat(admin().deleteAll(FailedRecordFilter.any().withHandlerId("h1"))).isEqualTo(1);
        assertThat(status(otherError)).isEmpty();
        assertThat(status(fresh)).contains(OutboxRecordStatus.NEW);
        assertThat(status(done)).contains(OutboxRecordStatus.COMPLETED);
        assertThat(status(match2)).contains(OutboxRecordStatus.SKIPPED);
        assertThat(admin().countFailed(FailedRecordFilter.any())).isZero();
    }

    @Test
    public final void aFilteredPageExaminesAtMostItsShareAndItsCursorLooksOnAfterIt() {
        List<OutboxRecord> records = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            records.add(failed(save("A" + i, "T", "h1"), i == 7 ? "the one" : "another", null));
        }
        String theOneId = records.get(7).getId();
        FailedRecordFilter theOne = FailedRecordFilter.any().withErrorContaining("the one");
        OutboxAdmin narrow = OutboxAdmin.builder().store(administration()).clock(clock).examinedPerPage(3).build();
        for (FailedRecordOrder order : FailedRecordOrder.values()) {
            List<FailedRecordPage> pages = new ArrayList<>();
            String cursor = null;
            do {
                FailedRecordPage page = narrow.failedPage(theOne, order, cursor, 5);
                pages.add(page);
                cursor = page.nextCursor();
                assertThat(pages).as("pages end").hasSizeLessThan(20);
            } while (cursor != null);
            assertThat(pages.stream().flatMap(page -> idsOf(page).stream())).as(order.name()).containsExactly(theOneId);
            assertThat(pages).as("%s: three records examined a page, the last one alone", order).hasSize(4);
            assertThat(pages.subList(0, 3)).allSatisfy(page -> assertThat(page.searchCut()).isTrue());
            assertThat(pages.get(3).searchCut()).as("the last page looked to the end").isFalse();
        }
        FailedRecordPage unfiltered = narrow.failedPage(FailedRecordFilter.any(), FailedRecordOrder.OLDEST_FIRST, null,
                5);
        assertThat(idsOf(unfiltered)).as("pages without a filter are not cut").hasSize(5);
        assertThat(unfiltered.searchCut()).isFalse();
        FailedRecordPage whole = admin().failedPage(theOne, FailedRecordOrder.OLDEST_FIRST, null, 5);
        assertThat(idsOf(whole)).as("by default a page looks through %d", OutboxAdmin.EXAMINED_PER_PAGE)
                .containsExactly(theOneId);
        assertThat(whole.nextCursor()).isNull();
        assertThat(whole.searchCut()).isFalse();
    }

    // ================================================================ what a failure holds back

    @Test
    public final void aFailedRecordCountsTheNewRecordsOfItsLaneAfterItAndOnlyThose() {
        save("A", "T", "h1");
        OutboxRecord failedA = failed(save("A", "T", "h1"), "boom", null);
        save("A", "T", "h1");
        save("A", "U", "h1");
        save("A", "T", "h2");
        completed(save("A", "T", "h1"));
        save("B", "T", "h1");
        OutboxRecord failedB = failed(save("B", "T", "h1"), "boom", null);
        OutboxRecord failedDefault = failed(save("C", "T", null), "boom", null);
        save("C", "T", null);
        OutboxRecord fresh = save("D", "T", "h1");
        OutboxRecord skipped = failed(save("E", "T", "h1"), "boom", null);
        save("E", "T", "h1");
        assertThat(admin().skipAll(FailedRecordFilter.any().withAggregateId("E"))).isEqualTo(1);

        Map<String, Long> behind = admin().newBehind(List.of(failedA.getId(), failedB.getId(),
                failedDefault.getId(), fresh.getId(), skipped.getId(), "no-such-record"));

        assertThat(behind).as("NEW records after each FAILED one in its aggregate and handler; others left out")
                .containsOnly(Map.entry(failedA.getId(), 2L), Map.entry(failedB.getId(), 0L),
                        Map.entry(failedDefault.getId(), 1L));
        assertThat(admin().newBehind(List.of())).isEmpty();
        assertThatThrownBy(() -> admin().newBehind(Collections.nCopies(OutboxAdmin.MAX_LIST_SIZE + 1, "x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("recordIds.size() must be between 0 and " + OutboxAdmin.MAX_LIST_SIZE);
    }

    // ================================================================ helpers

    private List<FailedRecordPage> allPages(FailedRecordFilter filter, FailedRecordOrder order, int limit) {
        List<FailedRecordPage> pages = new ArrayList<>();
        String cursor = null;
        do {
            FailedRecordPage page = admin().failedPage(filter, order, cursor, limit);
            assertThat(page.unreadable()).isEmpty();
            pages.add(page);
            cursor = page.nextCursor();
            assertThat(pages).as("pages end").hasSizeLessThan(100);
        } while (cursor != null);
        return pages;
    }

    private OutboxRecord save(String aggregateId, String eventType, @Nullable String handlerId) {
        return save(aggregateId, eventType, handlerId, clock);
    }

    private OutboxRecord save(String aggregateId, String eventType, @Nullable String handlerId,
            MutableClock createdBy) {
        OutboxRecord record = OutboxRecord.builder().aggregateId(aggregateId).eventType(eventType).payload("{}")
                .handlerId(handlerId).build(createdBy);
        repository().save(record);
        createdBy.advance(Duration.ofMillis(1));
        return stored(record);
    }

    /** Fails the record with {@code error}, its last attempt due at {@code start + lastAttemptDue} when given. */
    private OutboxRecord failed(OutboxRecord record, String error, @Nullable Duration lastAttemptDue) {
        if (lastAttemptDue != null) {
            assertThat(recordStore().scheduleRetry(Delivery.unfenced(stored(record)), 1, start.plus(lastAttemptDue),
                    "first try")).isTrue();
        }
        assertThat(recordStore().markFailed(Delivery.unfenced(stored(record)), 3, error)).isTrue();
        return stored(record);
    }

    private OutboxRecord completed(OutboxRecord record) {
        assertThat(recordStore().markCompleted(Delivery.unfenced(record), clock.instant())).isTrue();
        return stored(record);
    }

    private OutboxRecord stored(OutboxRecord record) {
        return repository().findById(record.getId())
                .orElseThrow(() -> new AssertionError("record " + record.getId() + " not found"));
    }

    private Optional<OutboxRecordStatus> status(OutboxRecord record) {
        return repository().findById(record.getId()).map(OutboxRecord::getStatus);
    }

    private static List<String> ids(OutboxRecord... records) {
        return Arrays.stream(records).sorted(Comparator.comparing(OutboxRecord::getSequence))
                .map(OutboxRecord::getId).toList();
    }

    private static List<String> idsOf(FailedRecordPage page) {
        return page.records().stream().map(OutboxRecord::getId).toList();
    }

    private static List<String> reversed(List<String> ids) {
        List<String> reversed = new ArrayList<>(ids);
        Collections.reverse(reversed);
        return reversed;
    }

    private static Duration hours(long hours) {
        return Duration.ofHours(hours);
    }

    private static Duration minutes(long minutes) {
        return Duration.ofMinutes(minutes);
    }
}
