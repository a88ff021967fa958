package dev.outbox.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.boot.OutboxHandlersAutoConfiguration;
import dev.outbox.boot.OutboxProcessingAutoConfiguration;
import dev.outbox.boot.OutboxStoreAutoConfiguration;
import dev.outbox.boot.OutboxWriteAutoConfiguration;
import dev.outbox.console.ConsoleTest.Ping;
import dev.outbox.console.ConsoleTest.Pong;
import dev.outbox.console.ConsoleTest.SwitchableProcessor;
import dev.outbox.partition.PartitionHasher;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.awaitility.core.ConditionFactory;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The page in headless Chromium against the application on a real port: the grid, a partition's detail, the backlog
 * chart, the FAILED records, a filter that survives a reload, and a retry by filter confirmed in the page that
 * completes the record in the database; paging through FAILED records, and a skip by filter whose dialog shows the
 * count from the database; an open page's SQL statements per second ({@link StatementsByThread}). Screenshots of the
 * main views go to {@code target/console-screenshots/}. Skipped when {@value #CHROMIUM} or {@value #CHROMEDRIVER} is
 * missing, unless {@code OUTBOX_TEST_REQUIRE_BROWSER=true}, which makes their absence a failure.
 */
class ConsoleBrowserTest {

    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    /** How long the page is watched for its statements: three of its polls. */
    private static final Duration OPEN_PAGE_WINDOW = Duration.ofSeconds(9);
    /** The web server's request threads, on which the page's requests run. */
    private static final String REQUEST_THREAD = "http-nio-";
    /** The monitor's refresh thread ({@code OutboxMonitor}). */
    private static final String MONITOR_THREAD = "outbox-monitor";

    private ConfigurableApplicationContext application;
    private WebDriver browser;
    private String console;

    @BeforeEach
    void start(@TempDir Path profile) {
        skipWithoutBrowser();
        application = new SpringApplicationBuilder(BrowserApplication.class)
                // Spring Security is on this module's test class path (ConsoleSecurityTest); this application has none
                .resourceLoader(new DefaultResourceLoader(new FilteredClassLoader("org.springframework.security")))
                .web(WebApplicationType.SERVLET)
                .properties(properties("outbox.console.allow-operations-without-security=true"))
                .run();
        console = "http://localhost:" + application.getEnvironment().getProperty("local.server.port")
                + "/outbox-console";
        browser = chromium(profile);
    }

    /** Aborts the test when the browser is missing, or fails it when {@code OUTBOX_TEST_REQUIRE_BROWSER=true}. */
    static void skipWithoutBrowser() {
        boolean present = Files.isExecutable(Path.of(CHROMIUM)) && Files.isExecutable(Path.of(CHROMEDRIVER));
        if (!present) {
            assertThat("true".equals(System.getenv("OUTBOX_TEST_REQUIRE_BROWSER")))
                    .as("OUTBOX_TEST_REQUIRE_BROWSER=true, but %s or %s is missing", CHROMIUM, CHROMEDRIVER)
                    .isFalse();
            Assumptions.abort(CHROMIUM + " or " + CHROMEDRIVER + " is missing");
        }
    }

    /** The application's properties: H2 of its own, records failed at once, operations enabled. */
    static String[] properties(String... more) {
        List<String> properties = new ArrayList<>(List.of("server.port=0",
                "spring.datasource.url=jdbc:h2:mem:browser_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                "outbox.schema-initialization.enabled=true",
                "outbox.retry.max-retries=0",
                "outbox.instance.id=node-a",
                "outbox.instance.heartbeat-interval-seconds=1",
                "outbox.instance.stale-instance-timeout-seconds=5",
                "outbox.instance.new-instance-detection-interval-seconds=1",
                "outbox.metrics.refresh-interval=200ms",
                "outbox.console.operations-enabled=true"));
        properties.addAll(List.of(more));
        return properties.toArray(String[]::new);
    }

    /** Headless Chromium in a 1280×900 window, with a profile of its own. */
    static WebDriver chromium(Path profile) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless", "--window-size=1280,900", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
                "--user-data-dir=" + profile.toAbsolutePath());
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    @AfterEach
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (application != null) {
            application.close();
        }
    }

    @Test
    void anOperatorFindsFiltersAndRetriesAFailedRecordInThePage() {
        Outbox outbox = application.getBean(Outbox.class);
        outbox.schedule(new Ping("first"), "order-1");
        outbox.schedule(new Ping("second"), "order-2");
        browser.get(console);

        onPage().until(() -> cells().size() == 256
                && "node-a".equals(cells().get(17).getDomAttribute("data-owner")));
        assertThat(browser.findElements(By.cssSelector("#instances tbody tr[data-instance-id='node-a']"))).hasSize(1);
        clickOnPage(By.cssSelector("#partition-grid [data-partition='17']"));
        onPage().until(() -> "17".equals(browser.findElement(By.id("partition-detail")).getDomAttribute(
                "data-partition")) && "node-a".equals(browser.findElement(By.cssSelector(
                        "#partition-detail [data-field='owner']")).getText()));
        screenshot("grid", "instances");

        onPage().until(() -> failedRows().size() == 2);
        // the backlog chart, sampled since startup: a FAILED line of several points that ends at the two
        By failedLine = By.cssSelector("#backlog-chart path[data-series='failed']");
        onPage().until(() -> "2".equals(browser.findElement(failedLine).getDomAttribute("data-last"))
                && Integer.parseInt(browser.findElement(failedLine).getDomAttribute("data-points")) >= 2);
        assertThat(browser.findElement(failedLine).getDomAttribute("d")).startsWith("M ").contains(" L ");
        // known once two samples hold node-a's published count: nothing completed, every record failed
        onPage().until(() -> browser.findElement(By.id("drain-rate")).getText().startsWith("0.00 records/s"));
        assertThat(browser.findElement(By.cssSelector(
                "#instances tr[data-instance-id='node-a'] td[data-field='epoch-changes']")).getText()).matches("\\d+");
        screenshot("history", "history");
        // a click counts the partition's records in the database: the FAILED ones of order-2's partition
        int partition = PartitionHasher.partitionOf("order-2");
        long failedThere = PartitionHasher.partitionOf("order-1") == partition ? 2 : 1;
        clickOnPage(By.cssSelector("#partition-grid [data-partition='" + partition + "']"));
        onPage().until(() -> String.valueOf(failedThere).equals(partitionField("failed")));
        assertThat(partitionField("not-yet-due")).isEqualTo("0");
        assertThat(partitionField("oldest-failed")).contains(" old (created ");
        assertThat(partitionField("oldest-new")).isEqualTo("none");
        WebElement aggregate = browser.findElement(By.id("filter-aggregate-id"));
        aggregate.sendKeys("order-2");
        browser.findElement(By.id("filter-apply")).click();
        onPage().until(() -> failedRows().size() == 1);
        assertThat(browser.getCurrentUrl()).contains("aggregateId=order-2");
        String id = failedRowIds().get(0);
        clickOnPage(By.cssSelector("#failed-records tbody tr[data-record-id='" + id + "']"));
        onPage().until(() -> browser.findElement(By.id("record-detail")).isDisplayed());

        browser.navigate().refresh();
        onPage().until(() -> failedRowIds().equals(List.of(id)));
        assertThat(browser.findElement(By.id("filter-aggregate-id")).getDomProperty("value")).isEqualTo("order-2");

        application.getBean(SwitchableProcessor.class).failing.set(false);
        browser.findElement(By.id("retry-all")).click();
        onPage().until(() -> browser.findElement(By.id("confirm")).isDisplayed());
        assertThat(browser.findElement(By.id("confirm-text")).getText())
                .contains("1 record(s) will be retried", "aggregateId=order-2");
        browser.findElement(By.id("confirm-ok")).click();

        JdbcTemplate database = new JdbcTemplate(application.getBean(DataSource.class));
        onPage().until(() -> database.queryForList(
                "select status from outbox_record where id = ?", String.class, id), List.of("COMPLETED")::equals);
        onPage().until(() -> failedRows().isEmpty());
        assertThat(browser.findElement(By.id("message")).getText()).contains("retry-all: 1 record(s) changed");
        assertThat(database.queryForList("select status from outbox_record where aggregate_id = 'order-1'",
                String.class)).as("outside the filter").containsExactly("FAILED");
    }

    @Test
    void anOperatorPagesThroughFailedRecordsAndSkipsThoseOfAFilterAfterSeeingTheirCountInTheDatabase() {
        Outbox outbox = application.getBean(Outbox.class);
        for (int order = 1; order <= 3; order++) {
            outbox.schedule(new Ping("ping " + order), "order-" + order);
        }
        outbox.schedule(new Pong("pong 4"), "order-4");
        outbox.schedule(new Pong("pong 5"), "order-5");
        JdbcTemplate database = new JdbcTemplate(application.getBean(DataSource.class));
        onPage().until(() -> database.queryForObject(
                "select count(*) from outbox_record where status = 'FAILED'", Integer.class) == 5);
        String pongType = database.queryForObject(
                "select event_type from outbox_record where aggregate_id = 'order-4'", String.class);

        browser.get(console + "?limit=2&order=newest");
        onPage().until(() -> aggregates().equals(List.of("order-5", "order-4")));
        assertThat(browser.findElement(By.id("filter-order")).getDomProperty("value")).isEqualTo("newest");
        browser.findElement(By.id("failed-next")).click();
        onPage().until(() -> aggregates().equals(List.of("order-3", "order-2")));
        assertThat(browser.getCurrentUrl()).contains("after=");
        browser.findElement(By.id("failed-next")).click();
        onPage().until(() -> aggregates().equals(List.of("order-1")));
        assertThat(browser.findElement(By.id("failed-next")).isEnabled()).as("the last page").isFalse();
        browser.findElement(By.id("failed-first")).click();
        onPage().until(() -> aggregates().equals(List.of("order-5", "order-4")));

        WebElement limit = browser.findElement(By.id("filter-limit"));
        limit.clear();
        limit.sendKeys("1");
        browser.findElement(By.id("filter-event-type")).sendKeys(pongType);
        browser.findElement(By.id("filter-error-contains")).sendKeys("REFUSES");
        browser.findElement(By.id("filter-apply")).click();
        onPage().until(() -> aggregates().equals(List.of("order-5")));
        assertThat(browser.getCurrentUrl()).contains("errorContains=REFUSES", "limit=1");
        screenshot("failed-records", "failed-filter");

        browser.findElement(By.id("skip-all")).click();
        onPage().until(() -> browser.findElement(By.id("confirm")).isDisplayed());
        assertThat(browser.findElement(By.id("confirm-text")).getText()).as("counted in the database, not the page")
                .contains("2 record(s) will be skipped", "errorContains=REFUSES");
        screenshot("confirm", "failed-filter");
        browser.findElement(By.id("confirm-ok")).click();

        onPage().until(() -> database.queryForList(
                "select status from outbox_record where event_type = ?", String.class, pongType),
                List.of("SKIPPED", "SKIPPED")::equals);
        onPage().until(() -> failedRows().isEmpty());
        assertThat(browser.findElement(By.id("message")).getText()).contains("skip-all: 2 record(s) changed");
        assertThat(database.queryForList("select status from outbox_record where event_type <> ?", String.class,
                pongType)).as("outside the filter").containsExactly("FAILED", "FAILED", "FAILED");
    }

    /** The creation age is a choice kept in the URL, and the retry it bounds leaves the older record alone. */
    @Test
    void theCreatedFilterSurvivesAReloadAndBoundsTheBulkRetry() {
        Outbox outbox = application.getBean(Outbox.class);
        outbox.schedule(new Ping("old"), "order-1");
        outbox.schedule(new Ping("recent"), "order-2");
        JdbcTemplate database = new JdbcTemplate(application.getBean(DataSource.class));
        onPage().until(() -> database.queryForObject(
                "select count(*) from outbox_record where status = 'FAILED'", Integer.class) == 2);
        database.update("update outbox_record set created_at = ? where aggregate_id = 'order-1'",
                Timestamp.from(Instant.now().minus(Duration.ofDays(2))));
        browser.get(console);
        onPage().until(() -> failedRows().size() == 2);

        new Select(browser.findElement(By.id("filter-created-within"))).selectByValue("P1D");
        browser.findElement(By.id("filter-apply")).click();
        onPage().until(() -> aggregates().equals(List.of("order-2")));
        assertThat(browser.getCurrentUrl()).contains("createdWithin=P1D");
        browser.navigate().refresh();
        onPage().until(() -> aggregates().equals(List.of("order-2")));
        assertThat(browser.findElement(By.id("filter-created-within")).getDomProperty("value")).isEqualTo("P1D");

        application.getBean(SwitchableProcessor.class).failing.set(false);
        browser.findElement(By.id("retry-all")).click();
        onPage().until(() -> browser.findElement(By.id("confirm")).isDisplayed());
        assertThat(browser.findElement(By.id("confirm-text")).getText())
                .contains("1 record(s) will be retried", "createdWithin=P1D", "created since ");
        browser.findElement(By.id("confirm-ok")).click();
        onPage().until(() -> database.queryForList("select status from outbox_record order by aggregate_id",
                String.class), List.of("FAILED", "COMPLETED")::equals);
    }

    /** The text of a field of the partition detail, read in one script (each poll renders it anew); empty if none. */
    private String partitionField(String field) {
        return String.valueOf(((JavascriptExecutor) browser).executeScript("const d = document.querySelector("
                + "`#partition-detail [data-field='${arguments[0]}']`); return d ? d.textContent : '';", field));
    }

    /**
     * The bound on an open page: no more than one statement a second on the page's own requests (the
     * overview is the monitor's cached snapshot; FAILED records are read again only when a refresh changed it). The
     * monitor's refreshes, which the page's polls cause but which run on the monitor's thread, are printed apart.
     * Slowness can only lower the page's rate, so the bound cannot flake.
     */
    @Test
    void anOpenPageRunsAtMostOneStatementASecondOnItsRequests() {
        Outbox outbox = application.getBean(Outbox.class);
        outbox.schedule(new Ping("first"), "order-1");
        outbox.schedule(new Ping("second"), "order-2");
        browser.get(console);
        onPage().until(() -> failedRows().size() == 2);
        StatementsByThread statements = application.getBean(StatementsByThread.class);

        Map<String, Long> before = statements.snapshot();
        long start = System.nanoTime();
        // a measurement window, not a wait for a condition: the page is left alone for three of its polls
        await().pollDelay(OPEN_PAGE_WINDOW).atMost(OPEN_PAGE_WINDOW.plus(PATIENCE)).until(() -> true);
        Map<String, Long> after = statements.snapshot();
        double seconds = (System.nanoTime() - start) / 1e9;

        long page = statementsSince(before, after, REQUEST_THREAD);
        long monitor = statementsSince(before, after, MONITOR_THREAD);
        System.out.printf("Open page over %.1f s: %d statements on request threads (%.2f/s), %d on the monitor's"
                + " thread (%.2f/s); all threads: %s%n", seconds, page, page / seconds, monitor, monitor / seconds,
                after);
        assertThat(page).as("the page re-read its FAILED records at least once: the counting sees its requests")
                .isPositive();
        assertThat(page / seconds).as("the page's statements per second").isLessThanOrEqualTo(1.0);
        assertThat(monitor).as("the page's polls refreshed the monitor").isPositive();
    }

    private static long statementsSince(Map<String, Long> before, Map<String, Long> after, String threadPrefix) {
        return after.entrySet().stream().filter(entry -> entry.getKey().startsWith(threadPrefix))
                .mapToLong(entry -> entry.getValue() - before.getOrDefault(entry.getKey(), 0L)).sum();
    }

    /** Saves the browser's window as target/console-screenshots/console-{name}.png for docs/images. */
    private void screenshot(String name, String topElementId) {
        ((JavascriptExecutor) browser).executeScript("document.getElementById(arguments[0]).scrollIntoView()",
                topElementId);
        try {
            Path directory = Files.createDirectories(Path.of("target", "console-screenshots"));
            Files.write(directory.resolve("console-" + name + ".png"),
                    ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The aggregates of the listed FAILED records, read at once. */
    @SuppressWarnings("unchecked")
    private List<String> aggregates() {
        return (List<String>) ((JavascriptExecutor) browser).executeScript("return Array.from(document"
                + ".querySelectorAll('#failed-records tbody tr[data-record-id]'))"
                + ".map(row => row.querySelectorAll('td')[1].textContent);");
    }

    /** The ids of the listed FAILED records, read at once. */
    @SuppressWarnings("unchecked")
    private List<String> failedRowIds() {
        return (List<String>) ((JavascriptExecutor) browser).executeScript("return Array.from(document"
                + ".querySelectorAll('#failed-records tbody tr[data-record-id]')).map(row => row.dataset.recordId);");
    }

    private List<WebElement> cells() {
        return browser.findElements(By.cssSelector("#partition-grid button[data-partition]"));
    }

    private List<WebElement> failedRows() {
        return browser.findElements(By.cssSelector("#failed-records tbody tr[data-record-id]"));
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
            org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class,
            org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration.class,
            org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration.class,
            org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration.class,
            org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration.class,
            org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration.class,
            org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration.class,
            org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration.class,
            OutboxStoreAutoConfiguration.class,
            OutboxHandlersAutoConfiguration.class,
            OutboxWriteAutoConfiguration.class,
            OutboxProcessingAutoConfiguration.class,
            OutboxConsoleAutoConfiguration.class})
    @Import({SwitchableProcessor.class, StatementsByThread.class})
    static class BrowserApplication {
    }

    /**
     * A wait on the page: it re-renders its rows and cells on every refresh, so an element found a moment ago may be
     * gone; such a look is simply taken again.
     */
    private static ConditionFactory onPage() {
        return await().atMost(PATIENCE).ignoreException(StaleElementReferenceException.class);
    }

    /** Clicks the element, finding it again if the page re-rendered it meanwhile. */
    private void clickOnPage(By target) {
        onPage().until(() -> {
            browser.findElement(target).click();
            return true;
        });
    }
}
