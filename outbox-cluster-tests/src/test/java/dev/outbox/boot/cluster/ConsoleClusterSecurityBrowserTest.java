package dev.outbox.boot.cluster;

import static dev.outbox.boot.cluster.ClusterAssertions.name;
import static dev.outbox.boot.cluster.ClusterAssertions.report;
import static dev.outbox.boot.cluster.ClusterAssertions.since;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.boot.cluster.ClusterNodeApplication.ConsoleUsers;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;

/**
 * The operator console behind Spring Security's form login on two web node JVMs on PostgreSQL, in headless Chromium:
 * on each node a user without {@code outbox.console.role} is refused the page and its JSON, and the operator who has
 * it sees the grid with both owners, as the partition table has them. Skipped when Chromium or chromedriver is
 * missing, unless {@code OUTBOX_TEST_REQUIRE_BROWSER=true}.
 */
@ExtendWith(NodeLogsOnFailure.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ConsoleClusterSecurityBrowserTest {

    private static final List<String> NODES = List.of("node-1", "node-2");
    /** Not the default role: the nodes' console must ask for the one it is configured with. */
    private static final String ROLE = "CLUSTER_OPERATOR";
    /** The page's JSON a viewer must not read. */
    private static final List<String> API = List.of("/api/overview", "/api/history", "/api/failed-records",
            "/api/failed-records/count", "/api/partitions/0");
    /** Generous: two cores are shared by PostgreSQL, Chromium, the test JVM and two node JVMs. */
    private static final Duration PATIENCE = Duration.ofSeconds(90);

    private WebDriver browser;

    @Test
    void aUserWithoutTheRoleIsRefusedOnEitherNodeAndTheOperatorSeesBothOwners(TestInfo test, @TempDir Path profile) {
        ClusterBrowser.assumePresent();
        long startedAt = System.nanoTime();
        try (ClusterHarness cluster = ClusterHarness.create(name(test))) {
            Map<String, URI> web = cluster.startWebNodes(NODES, ClusterNodeApplication.CONSOLE_SECURITY + "=true",
                    "outbox.console.role=" + ROLE);
            cluster.awaitBalanced(NODES.toArray(String[]::new));
            browser = ClusterBrowser.start(profile);
            try {
                for (String node : NODES) {
                    URI console = web.get(node).resolve("/outbox-console");
                    viewerRefused(node, console);
                    operatorSeesBothOwners(cluster, node, console);
                }
            } finally {
                browser.quit();
            }
            report(test, "console security scenario took %s", since(startedAt));
        }
    }

    /** Signed in without the role: the page and each of its JSON answers 403 naming the role. */
    private void viewerRefused(String node, URI console) {
        signIn(console, ConsoleUsers.VIEWER);
        assertThat(browser.getPageSource()).as("%s's page for %s", node, ConsoleUsers.VIEWER)
                .contains("the outbox console requires the role " + ROLE).doesNotContain("partition-grid");
        assertThat(answer(console.toString())).as("the page on %s for %s", node, ConsoleUsers.VIEWER)
                .startsWith("403 ").contains("requires the role " + ROLE);
        for (String path : API) {
            assertThat(answer(console + path)).as("%s on %s for %s", path, node, ConsoleUsers.VIEWER)
                    .startsWith("403 ").contains("requires the role " + ROLE);
        }
        browser.manage().deleteAllCookies();
    }

    /** Signed in with the role on the same node: its grid shows 128 partitions for each node, as outbox_partition. */
    private void operatorSeesBothOwners(ClusterHarness cluster, String node, URI console) {
        signIn(console, ConsoleUsers.OPERATOR);
        awaitOnPage(node + "'s grid showing outbox_partition with both owners", () -> {
            PartitionTable table = cluster.partitionTable();
            List<String> cells = IntStream.range(0, PartitionTable.PARTITIONS)
                    .mapToObj(p -> p + "|" + table.ownerOf(p) + "|true").toList();
            return table.countsByOwner().equals(Map.of("node-1", 128, "node-2", 128)) && ClusterBrowser.gridCells(browser).equals(cells);
        });
        assertThat(answer(console + "/api/overview")).as("the overview on %s for %s", node, ConsoleUsers.OPERATOR)
                .startsWith("200 ");
        browser.manage().deleteAllCookies();
    }

    /**
     * Opens the console, which sends the browser to Spring Security's login form, signs in there and waits until the
     * browser is back on the console's address with whatever it answered loaded.
     */
    private void signIn(URI console, String user) {
        browser.get(console.toString());
        awaitOnPage("the login form", () -> !browser.findElements(By.name("username")).isEmpty());
        browser.findElement(By.name("username")).sendKeys(user);
        browser.findElement(By.name("password")).sendKeys(ConsoleUsers.PASSWORD);
        browser.findElement(By.tagName("form")).submit();
        awaitOnPage(user + " signed in and back on " + console, () -> browser.getCurrentUrl()
                .startsWith(console.toString()) && "complete".equals(((JavascriptExecutor) browser)
                .executeScript("return document.readyState;")));
    }

    /** "status body" of a GET the page makes with the browser's session. */
    private String answer(String url) {
        return String.valueOf(((JavascriptExecutor) browser).executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "fetch(arguments[0]).then(r => r.text().then(t => done(r.status + ' ' + t)),"
                        + " e => done('failed ' + e));", url));
    }

    private static void awaitOnPage(String what, Callable<Boolean> condition) {
        await().alias(what).atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(condition);
    }
}
