package dev.outbox.boot.cluster;

import static dev.outbox.boot.cluster.ClusterAssertions.name;
import static dev.outbox.boot.cluster.ClusterAssertions.report;
import static dev.outbox.boot.cluster.ClusterAssertions.since;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;

/**
 * The operator console of node-1 in headless Chromium, two web node JVMs on PostgreSQL: the grid names both owners as
 * the partition table does, FAILED records show in the list, a retry by filter confirmed in the page completes them
 * and a skip marks one SKIPPED, and node-2 killed with -9 turns late or departed on the page before its partitions
 * show node-1 as their owner, its claims of the hour counting them, and stays departed once its row is gone. Screenshots go to
 * {@code target/console-screenshots}. Skipped when Chromium or chromedriver is missing, unless
 * {@code OUTBOX_TEST_REQUIRE_BROWSER=true}.
 */
@ExtendWith(NodeLogsOnFailure.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ConsoleClusterBrowserTest {

    private static final List<String> NODES = List.of("node-1", "node-2");
    /** Generous: two cores are shared by PostgreSQL, Chromium, the test JVM and two node JVMs. */
    private static final Duration PATIENCE = Duration.ofSeconds(90);
    /**
     * Longer than the harness's: the page polls every 3 s, and node-2 must be seen late (past half of this without a
     * heartbeat) or departed before node-1 takes its partitions over.
     */
    private static final int STALE_TIMEOUT_SECONDS = 10;
    private static final Path SCREENSHOTS = Path.of("target", "console-screenshots");
    /** Retried by filter once the failure is switched off. */
    private static final String DOOMED = "Doomed";
    /** Outside the filter: stays FAILED, but one is skipped. */
    private static final String CURSED = "Cursed";
    private static final int DOOMED_RECORDS = 12;
    private static final int CURSED_RECORDS = 4;
    private static final int HEALTHY_AGGREGATES = 50;
    private static final int HEALTHY_PER_AGGREGATE = 2;

    private WebDriver browser;

    @Test
    void anOperatorSeesTwoNodesRetriesAndSkipsFailedRecordsAndAKilledNodesPartitionsTakenOver(TestInfo test,
            @TempDir Path profile) throws IOException {
        ClusterBrowser.assumePresent();
        Files.createDirectories(SCREENSHOTS);
        long startedAt = System.nanoTime();
        try (ClusterHarness cluster = ClusterHarness.create(name(test))) {
            cluster.jdbc().update("INSERT INTO failing_event_type (event_type) VALUES (?), (?)", DOOMED, CURSED);
            Map<String, URI> web = cluster.startWebNodes(NODES, "cluster.failure-switch=true",
                    "outbox.retry.max-retries=0",
                    "outbox.metrics.refresh-interval=500ms",
                    "outbox.instance.stale-instance-timeout-seconds=" + STALE_TIMEOUT_SECONDS,
                    "outbox.console.operations-enabled=true",
                    "outbox.console.allow-operations-without-security=true");
            cluster.awaitBalanced(NODES.toArray(String[]::new));
            browser = ClusterBrowser.start(profile);
            try {
                browser.get(web.get("node-1") + "/outbox-console");
                twoOwnersInTheGrid(cluster);
                failedRecordsRetriedAndSkipped(cluster);
                killedNodeTakenOver(cluster);
            } finally {
                browser.quit();
            }
            report(test, "console scenario took %s", since(startedAt));
        }
    }

    /** 1: 256 cells, 128 for each node, each cell's owner the one of the partition table, every owner live. */
    private void twoOwnersInTheGrid(ClusterHarness cluster) throws IOException {
        PartitionTable table = awaitGridMatching(cluster, "both nodes", shown -> shown.isBalancedAmong(NODES));
        assertThat(table.countsByOwner()).as("owners in the grid, as in outbox_partition")
                .isEqualTo(Map.of("node-1", 128, "node-2", 128));
        awaitOnPage("both instance rows live", () -> instanceState("node-1").equals("live")
                && instanceState("node-2").equals("live"));
        screenshot("1-two-owners.png");
        // No backlog yet: the cells differ by the owner's hue alone, which must tell them apart at a glance.
        String first = cellColour(table.partitionsOf("node-1"));
        String second = cellColour(table.partitionsOf("node-2"));
        assertThat(colourDistance(first, second)).as("distance between node-1's %s and node-2's %s", first, second)
                .isGreaterThan(60);
    }

    /** The Euclidean distance of two CSS {@code rgb(r, g, b)} colours. */
    private static double colourDistance(String first, String second) {
        int[] a = rgb(first);
        int[] b = rgb(second);
        return Math.sqrt(Math.pow(a[0] - b[0], 2) + Math.pow(a[1] - b[1], 2) + Math.pow(a[2] - b[2], 2));
    }

    private static int[] rgb(String colour) {
        String[] parts = colour.replaceAll("[^0-9,]", "").split(",");
        return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2])};
    }

    /** 2 and 3: FAILED records listed; one skipped, a retry by filter completes the others of its event type. */
    private void failedRecordsRetriedAndSkipped(ClusterHarness cluster) throws IOException {
        cluster.insertRecords(HEALTHY_AGGREGATES, HEALTHY_PER_AGGREGATE);
        List<String> doomed = cluster.insertRecordsOfType(DOOMED, "doomed", DOOMED_RECORDS);
        List<String> cursed = cluster.insertRecordsOfType(CURSED, "cursed", CURSED_RECORDS);
        Set<String> failing = new HashSet<>(doomed);
        failing.addAll(cursed);
        cluster.awaitWhileNodesLive("healthy records COMPLETED, the others FAILED", () -> cluster.statusCounts()
                .equals(Map.of("COMPLETED", (long) HEALTHY_AGGREGATES * HEALTHY_PER_AGGREGATE,
                        "FAILED", (long) failing.size())));
        assertThat(statusOf(cluster, failing)).as("records of the failing event types").containsOnly("FAILED");
        awaitOnPage("the FAILED records listed", () -> failedRowIds().equals(failing));
        screenshot("2-failed-records.png");

        String skipped = cursed.get(0);
        clickWhenPresent(By.cssSelector("#failed-records tbody tr[data-record-id='" + skipped
                + "'] button[data-action='skip']"));
        confirm("skip record " + skipped);
        awaitOnPage("the skipped record SKIPPED in the database",
                () -> statusOf(cluster, Set.of(skipped)).equals(Set.of("SKIPPED")));
        awaitOnPage("the skipped record gone from the list", () -> !failedRowIds().contains(skipped));

        cluster.jdbc().update("DELETE FROM failing_event_type");
        browser.findElement(By.id("filter-event-type")).sendKeys(DOOMED);
        clickWhenPresent(By.id("filter-apply"));
        awaitOnPage("only the " + DOOMED + " records listed", () -> failedRowIds().equals(Set.copyOf(doomed)));
        clickWhenPresent(By.id("retry-all"));
        confirm("eventType=" + DOOMED, DOOMED_RECORDS + " record(s)");
        awaitOnPage("the " + DOOMED + " records COMPLETED in the database",
                () -> statusOf(cluster, Set.copyOf(doomed)).equals(Set.of("COMPLETED")));
        awaitOnPage("the list empty", () -> failedRowIds().isEmpty());
        assertThat(browser.findElement(By.id("message")).getText())
                .contains("retry-all: " + DOOMED_RECORDS + " record(s) changed");
        assertThat(cluster.statusCounts()).as("records by status: the other %s records outside the filter", CURSED)
                .isEqualTo(Map.of("COMPLETED", (long) HEALTHY_AGGREGATES * HEALTHY_PER_AGGREGATE + DOOMED_RECORDS,
                        "FAILED", (long) CURSED_RECORDS - 1, "SKIPPED", 1L));
    }

    /**
     * 4: node-2 killed with -9 is late or departed on the page, then node-1 owns every cell, as in the table, and
     * node-2 stays listed departed with its last heartbeat.
     */
    private void killedNodeTakenOver(ClusterHarness cluster) throws IOException {
        PartitionTable before = cluster.partitionTable();
        int partition = before.partitionsOf("node-2").iterator().next();
        clickWhenPresent(By.cssSelector("#partition-grid [data-partition='" + partition + "']"));
        awaitOnPage("partition " + partition + " shown owned by node-2", () -> "node-2".equals(detail("owner"))
                && "yes".equals(detail("owner-live"))
                && String.valueOf(before.epochOf(partition)).equals(detail("epoch")));

        long killedAt = System.nanoTime();
        cluster.kill9("node-2");
        Set<String> statesSeen = new LinkedHashSet<>();
        awaitOnPage("node-2 late or departed on the page", () -> {
            String state = instanceState("node-2");
            statesSeen.add(state);
            return state.equals("late") || state.equals("departed");
        });
        Duration markedAfter = since(killedAt);
        screenshot("3-node-2-" + instanceState("node-2") + ".png");

        PartitionTable after = awaitGridMatching(cluster, "node-1 alone",
                shown -> shown.partitionsOf("node-1").size() == PartitionTable.PARTITIONS);
        assertThat(after.countsByOwner()).as("owners in the grid after the takeover, as in outbox_partition")
                .isEqualTo(Map.of("node-1", 256));
        // the takeover removed node-2's row; the page remembers it live and shows it departed, its partitions gone
        awaitOnPage("node-2 departed and partition " + partition + " shown taken over", () ->
                instanceState("node-2").equals("departed") && "node-1".equals(detail("owner"))
                        && String.valueOf(cluster.partitionTable().epochOf(partition)).equals(detail("epoch")));
        assertThat(instanceRows("node-2")).as("node-2's rows in the instances table").singleElement()
                .satisfies(row -> assertThat(row).contains("departed: last heartbeat at", "node-2"));
        assertThat(instanceCell("node-2", 7)).as("partitions node-2 still owns").isEqualTo("0");
        assertThat(cluster.partitionTable().epochOf(partition)).as("epoch of partition %d after the takeover",
                partition).isGreaterThan(before.epochOf(partition));
        awaitOnPage("node-1 live", () -> instanceState("node-1").equals("live"));
        int takenOver = before.partitionsOf("node-2").size();
        awaitOnPage("node-1's claims of the last hour counting the " + takenOver + " partitions it took over",
                () -> claims("node-1") >= takenOver);
        screenshot("4-after-takeover.png");
        System.out.printf("node-2 states seen on the page after kill -9: %s; marked %s after the kill, "
                + "grid all node-1 %s after it%n", statesSeen, markedAfter, since(killedAt));
    }

    /**
     * Waits until the page's grid shows the partition table as it is now, every owner live, and that table is
     * {@code expected}; returns it.
     */
    private PartitionTable awaitGridMatching(ClusterHarness cluster, String owners,
            Predicate<PartitionTable> expected) {
        AtomicReference<PartitionTable> matched = new AtomicReference<>();
        awaitOnPage("the grid showing outbox_partition with " + owners, () -> {
            PartitionTable table = cluster.partitionTable();
            if (!expected.test(table)) {
                return false;
            }
            List<String> cells = IntStream.range(0, PartitionTable.PARTITIONS)
                    .mapToObj(p -> p + "|" + table.ownerOf(p) + "|true").toList();
            matched.set(table);
            return ClusterBrowser.gridCells(browser).equals(cells);
        });
        return matched.get();
    }

    /** The computed background colour of the first of the partitions' cells. */
    private String cellColour(Set<Integer> partitions) {
        return String.valueOf(((JavascriptExecutor) browser).executeScript("return getComputedStyle(document"
                + ".querySelector(`#partition-grid [data-partition='${arguments[0]}']`)).backgroundColor;",
                partitions.iterator().next()));
    }

    /** The data-state of the instance's row, empty when the page lists none. */
    private String instanceState(String instanceId) {
        Object state = ((JavascriptExecutor) browser).executeScript("const row = document.querySelector("
                + "`#instances tbody tr[data-instance-id='${arguments[0]}']`); return row ? row.dataset.state : '';",
                instanceId);
        return String.valueOf(state);
    }

    /** The text of each row of the instances table for the instance, its cells separated by '|'. */
    @SuppressWarnings("unchecked")
    private List<String> instanceRows(String instanceId) {
        return (List<String>) ((JavascriptExecutor) browser).executeScript("return Array.from(document"
                + ".querySelectorAll(`#instances tbody tr[data-instance-id='${arguments[0]}']`))"
                + ".map(row => Array.from(row.cells).map(cell => cell.textContent).join('|'));", instanceId);
    }

    /** The text of the instance's row's cell {@code column} (1 for the id), or '' without that row. */
    private String instanceCell(String instanceId, int column) {
        return String.valueOf(((JavascriptExecutor) browser).executeScript("const cell = document.querySelector("
                + "`#instances tbody tr[data-instance-id='${arguments[0]}'] td:nth-child(${arguments[1]})`);"
                + " return cell ? cell.textContent : '';", instanceId, column));
    }

    private Set<String> failedRowIds() {
        @SuppressWarnings("unchecked")
        List<String> ids = (List<String>) ((JavascriptExecutor) browser).executeScript("return Array.from(document"
                + ".querySelectorAll('#failed-records tbody tr[data-record-id]')).map(r => r.dataset.recordId);");
        return new HashSet<>(ids);
    }

    /** The instance's "Claims (1 h)" cell; -1 while blank or absent. */
    private long claims(String instanceId) {
        Object text = ((JavascriptExecutor) browser).executeScript("const cell = document.querySelector("
                + "`#instances tbody tr[data-instance-id='${arguments[0]}'] [data-field='epoch-changes']`);"
                + " return cell ? cell.textContent : '';", instanceId);
        String claims = String.valueOf(text);
        return claims.matches("\\d+") ? Long.parseLong(claims) : -1;
    }

    private String detail(String field) {
        Object text = ((JavascriptExecutor) browser).executeScript("const d = document.querySelector("
                + "`#partition-detail [data-field='${arguments[0]}']`); return d ? d.textContent : '';", field);
        return String.valueOf(text);
    }

    private static Set<String> statusOf(ClusterHarness cluster, Set<String> ids) {
        Set<String> statuses = new HashSet<>();
        for (String id : ids) {
            statuses.addAll(cluster.jdbc().queryForList("SELECT status FROM outbox_record WHERE id = ?",
                    String.class, id));
        }
        return statuses;
    }

    /** The page re-renders its tables on every poll: a click on a replaced element is tried again. */
    private void clickWhenPresent(By target) {
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(100)).ignoreExceptionsMatching(failure ->
                failure instanceof StaleElementReferenceException || failure instanceof NoSuchElementException)
                .until(() -> {
                    browser.findElement(target).click();
                    return true;
                });
    }

    /** Waits for the confirmation dialog, checks its text and confirms. */
    private void confirm(String... textParts) {
        awaitOnPage("the confirmation dialog", () -> browser.findElement(By.id("confirm")).isDisplayed());
        assertThat(browser.findElement(By.id("confirm-text")).getText()).contains(textParts);
        browser.findElement(By.id("confirm-ok")).click();
        awaitOnPage("the confirmation dialog closed", () -> !browser.findElement(By.id("confirm")).isDisplayed());
    }

    private static void awaitOnPage(String what, Callable<Boolean> condition) {
        await().alias(what).atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(condition);
    }

    private void screenshot(String file) throws IOException {
        Files.write(SCREENSHOTS.resolve(file), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }
}
