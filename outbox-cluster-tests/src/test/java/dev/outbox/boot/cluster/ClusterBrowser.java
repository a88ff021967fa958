package dev.outbox.boot.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/** Headless Chromium for the cluster's console tests, and what they read from the page the same way. */
final class ClusterBrowser {

    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";

    private ClusterBrowser() {
    }

    /** Aborts the test when Chromium or chromedriver is missing, but fails it then with OUTBOX_TEST_REQUIRE_BROWSER. */
    static void assumePresent() {
        boolean present = Files.isExecutable(Path.of(CHROMIUM)) && Files.isExecutable(Path.of(CHROMEDRIVER));
        if (!present) {
            assertThat("true".equals(System.getenv("OUTBOX_TEST_REQUIRE_BROWSER")))
                    .as("OUTBOX_TEST_REQUIRE_BROWSER=true, but %s or %s is missing", CHROMIUM, CHROMEDRIVER)
                    .isFalse();
            Assumptions.abort(CHROMIUM + " or " + CHROMEDRIVER + " is missing");
        }
    }

    /** A window tall enough for the whole page, with a profile of its own. */
    static WebDriver start(Path profile) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1280,2200",
                "--user-data-dir=" + profile.toAbsolutePath());
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    /** Each cell of the partition grid as "partition|owner|live", in page order. */
    @SuppressWarnings("unchecked")
    static List<String> gridCells(WebDriver browser) {
        return (List<String>) ((JavascriptExecutor) browser).executeScript("return Array.from(document"
                + ".querySelectorAll('#partition-grid [data-partition]'))"
                + ".map(c => c.dataset.partition + '|' + c.dataset.owner + '|' + c.dataset.ownerLive);");
    }
}
