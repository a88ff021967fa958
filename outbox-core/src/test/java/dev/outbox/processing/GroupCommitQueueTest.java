package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class GroupCommitQueueTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final List<List<String>> groups = new CopyOnWriteArrayList<>();
    private final CountDownLatch firstWriteMayFinish = new CountDownLatch(1);

    private void write(List<String> group) {
        groups.add(List.copyOf(group));
        if (groups.size() == 1) {
            try {
                firstWriteMayFinish.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void whatArrivesDuringAWriteIsWrittenTogetherNextInArrivalOrder() {
        GroupCommitQueue<String> queue = new GroupCommitQueue<>("test-writer", this::write, item -> 1, 100);
        queue.add("first");
        await().atMost(PATIENCE).until(() -> groups.size() == 1);
        for (int i = 0; i < 8; i++) {
            queue.add("item-" + i);
        }

        firstWriteMayFinish.countDown();
        await().atMost(PATIENCE).until(() -> !queue.isBusy());
        queue.close(PATIENCE.toMillis());

        assertThat(groups).containsExactly(List.of("first"),
                List.of("item-0", "item-1", "item-2", "item-3", "item-4", "item-5", "item-6", "item-7"));
    }

    @Test
    void aGroupStopsGrowingAtTheMaximumWeight() {
        GroupCommitQueue<String> queue = new GroupCommitQueue<>("test-writer", this::write, String::length, 4);
        queue.add("x");
        await().atMost(PATIENCE).until(() -> groups.size() == 1);
        queue.add("aa");
        queue.add("bb");
        queue.add("cc");
        queue.add("dddddd");

        firstWriteMayFinish.countDown();
        await().atMost(PATIENCE).until(() -> !queue.isBusy());
        queue.close(PATIENCE.toMillis());

        assertThat(groups).containsExactly(List.of("x"), List.of("aa", "bb"), List.of("cc"), List.of("dddddd"));
    }

    @Test
    void closingWritesWhatIsQueuedAndLaterItemsAreWrittenByTheCaller() {
        firstWriteMayFinish.countDown();
        GroupCommitQueue<String> queue = new GroupCommitQueue<>("test-writer", this::write, item -> 1, 100);
        queue.add("queued");
        queue.close(PATIENCE.toMillis());
        queue.add("after close");

        assertThat(groups.stream().flatMap(List::stream)).containsExactly("queued", "after close");
    }

    @Test
    void whileMoreIsComingTheWriterWaitsForItAndWritesTheBurstOnce() {
        firstWriteMayFinish.countDown();
        AtomicBoolean moreComing = new AtomicBoolean(true);
        GroupCommitQueue<String> queue = new GroupCommitQueue<>("test-writer", this::write, item -> 1, 100,
                moreComing::get, PATIENCE);
        queue.add("first");
        queue.add("second");
        moreComing.set(false);
        queue.add("last"); // an add makes the writer ask again

        await().atMost(PATIENCE).until(() -> !groups.isEmpty() && !queue.isBusy());
        queue.close(PATIENCE.toMillis());

        assertThat(groups).containsExactly(List.of("first", "second", "last"));
    }

    @Test
    void aNudgeMakesALingeringWriterAskAgain() {
        firstWriteMayFinish.countDown();
        AtomicBoolean moreComing = new AtomicBoolean(true);
        GroupCommitQueue<String> queue = new GroupCommitQueue<>("test-writer", this::write, item -> 1, 100,
                moreComing::get, PATIENCE);
        queue.add("alone");
        moreComing.set(false);
        queue.nudge();

        await().atMost(PATIENCE).until(() -> groups.size() == 1);
        queue.close(PATIENCE.toMillis());

        assertThat(groups).containsExactly(List.of("alone"));
    }

    @Test
    void theWriterLingersNoLongerThanItsLingerNorPastTheMaximumWeight() {
        firstWriteMayFinish.countDown();
        GroupCommitQueue<String> lingering = new GroupCommitQueue<>("test-writer", this::write, item -> 1, 100,
                () -> true, Duration.ofMillis(5));
        lingering.add("more never comes");
        await().atMost(PATIENCE).until(() -> groups.size() == 1);
        lingering.close(PATIENCE.toMillis());

        GroupCommitQueue<String> full = new GroupCommitQueue<>("test-writer", this::write, item -> 1, 2,
                () -> true, PATIENCE);
        full.add("a");
        full.add("b");
        await().atMost(PATIENCE).until(() -> groups.size() == 2);
        full.close(PATIENCE.toMillis());

        assertThat(groups).containsExactly(List.of("more never comes"), List.of("a", "b"));
    }
}
