package dev.outbox.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.console.ConsoleTest.Ping;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.awaitility.core.ConditionFactory;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The page in headless Chromium behind Spring Security's form login: a user without {@code outbox.console.role} is
 * refused the page and its operations; an operator skips a record by filter, the page sending the CSRF token.
 */
class ConsoleSecureBrowserTest {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private ConfigurableApplicationContext application;
    private WebDriver browser;
    private String root;

    @BeforeEach
    void start(@TempDir Path profile) {
        ConsoleBrowserTest.skipWithoutBrowser();
        application = new SpringApplicationBuilder(SecuredApplication.class).web(WebApplicationType.SERVLET)
                .properties(ConsoleBrowserTest.properties()).run();
        root = "http://localhost:" + application.getEnvironment().getProperty("local.server.port");
        browser = ConsoleBrowserTest.chromium(profile);
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
    void aUserWithoutTheRoleIsRefusedAndAnOperatorSkipsARecordWithTheCsrfToken() {
        application.getBean(Outbox.class).schedule(new Ping("first"), "order-1");
        JdbcTemplate database = new JdbcTemplate(application.getBean(DataSource.class));
        onPage().until(() -> database.queryForList("select status from outbox_record",
                String.class), List.of("FAILED")::equals);

        signIn("viewer");
        onPage().until(() -> browser.getPageSource().contains("requires the role OUTBOX_OPERATOR"));
        Object status = ((JavascriptExecutor) browser).executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "fetch('/outbox-console/api/skip-all', { method: 'POST' }).then(r => done(r.status));");
        assertThat(((Number) status).intValue()).as("a POST without the role").isEqualTo(403);
        assertThat(database.queryForList("select status from outbox_record", String.class))
                .containsExactly("FAILED");

        browser.manage().deleteAllCookies();
        signIn("operator");
        onPage().until(() -> browser.findElements(
                By.cssSelector("#failed-records tbody tr[data-record-id]")).size() == 1);
        browser.findElement(By.id("filter-aggregate-id")).sendKeys("order-1");
        browser.findElement(By.id("filter-apply")).click();
        browser.findElement(By.id("skip-all")).click();
        onPage().until(() -> browser.findElement(By.id("confirm")).isDisplayed());
        assertThat(browser.findElement(By.id("confirm-text")).getText()).contains("1 record(s) will be skipped");
        browser.findElement(By.id("confirm-ok")).click();
        onPage().until(() -> database.queryForList("select status from outbox_record",
                String.class), List.of("SKIPPED")::equals);
    }

    /** Opens the console, which sends the browser to Spring Security's login form, and signs in there. */
    private void signIn(String user) {
        browser.get(root + "/outbox-console");
        onPage().until(() -> !browser.findElements(By.name("username")).isEmpty());
        browser.findElement(By.name("username")).sendKeys(user);
        browser.findElement(By.name("password")).sendKeys("secret");
        WebElement form = browser.findElement(By.tagName("form"));
        form.submit();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({SecurityAutoConfiguration.class, ServletWebSecurityAutoConfiguration.class,
            SecurityFilterAutoConfiguration.class})
    @Import(ConsoleBrowserTest.BrowserApplication.class)
    static class SecuredApplication {
        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("operator").password("{noop}secret").roles("OUTBOX_OPERATOR").build(),
                    User.withUsername("viewer").password("{noop}secret").roles("VIEWER").build());
        }

        @Bean
        SecurityFilterChain security(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                    .formLogin(Customizer.withDefaults()).build();
        }
    }

    /**
     * A wait on the page: it re-renders its rows and cells on every refresh, so an element found a moment ago may be
     * gone; such a look is simply taken again.
     */
    private static ConditionFactory onPage() {
        return await().atMost(PATIENCE).ignoreException(StaleElementReferenceException.class);
    }
}
