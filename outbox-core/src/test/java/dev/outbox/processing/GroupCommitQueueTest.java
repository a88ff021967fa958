package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
}
