package dev.outbox.console;

import static dev.outbox.console.ConsoleTest.json;
import static dev.outbox.console.ConsoleTest.perform;
import static dev.outbox.console.ConsoleTest.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import dev.outbox.Outbox;
import dev.outbox.console.ConsoleTest.Ping;
import jakarta.servlet.Filter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.MockHttpSession;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/**
 * With Spring Security: the application's filter chain signs users in and checks CSRF tokens, the console asks for
 * {@code outbox.console.role}, and the page hands its CSRF token to its operations; no opt-in without security is
 * needed.
 */
class ConsoleSecurityTest {

    private static final Pattern CSRF_HEADER = Pattern.compile(
            "<meta name=\"outbox-console-csrf-header\" content=\"([^\"]+)\">");
    private static final Pattern CSRF_TOKEN = Pattern.compile(
            "<meta name=\"outbox-console-csrf-token\" content=\"([^\"]+)\">");

    private final WebApplicationContextRunner runner = ConsoleTest.application()
            .withConfiguration(AutoConfigurations.of(SecurityAutoConfiguration.class,
                    ServletWebSecurityAutoConfiguration.class, SecurityFilterAutoConfiguration.class))
            .withUserConfiguration(Users.class)
            .withPropertyValues("outbox.console.operations-enabled=true");

    @Test
    void theConsoleNeedsTheRoleAndItsOperationsTheCsrfTokenThePageCarries() {
        runner.run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context)
                    .addFilters(context.getBean("springSecurityFilterChain", Filter.class)).build();
            JdbcTemplate database = new JdbcTemplate(context.getBean(DataSource.class));
            context.getBean(Outbox.class).schedule(new Ping("first"), "order-1");
            List<String> ids = await().atMost(Duration.ofSeconds(60)).until(() -> database.queryForList(
                    "select id from outbox_record where status = 'FAILED'", String.class),
                    failed -> failed.size() == 1);

            assertThat(perform(mvc, get("/outbox-console")).getStatus()).as("not signed in").isEqualTo(401);
            assertThat(perform(mvc, get("/outbox-console").header("Authorization", basic("viewer"))).getStatus())
                    .as("without the role").isEqualTo(403);
            assertThat(perform(mvc, get("/outbox-console/api/overview").header("Authorization", basic("viewer")))
                    .getStatus()).isEqualTo(403);
            assertThat(perform(mvc, post("/outbox-console/api/records/" + ids.get(0) + "/skip")
                    .header("Authorization", basic("viewer"))).getStatus()).isEqualTo(403);
            for (String bulk : List.of("retry-all", "skip-all", "delete-all")) {
                assertThat(perform(mvc, post("/outbox-console/api/" + bulk).header("Authorization", basic("viewer")))
                        .getStatus()).as(bulk + " without the role").isEqualTo(403);
            }
            assertThat(perform(mvc, get("/outbox-console/api/failed-records/count")
                    .header("Authorization", basic("viewer"))).getStatus()).isEqualTo(403);
            assertThat(status(database, ids.get(0))).containsExactly("FAILED");

            MvcResult page = mvc.perform(get("/outbox-console").header("Authorization", basic("operator")))
                    .andReturn();
            assertThat(page.getResponse().getStatus()).isEqualTo(200);
            String html = page.getResponse().getContentAsString();
            String header = match(CSRF_HEADER, html);
            String token = match(CSRF_TOKEN, html);
            assertThat(header).isEqualTo("X-CSRF-TOKEN");
            MockHttpSession session = (MockHttpSession) page.getRequest().getSession(false);
            assertThat(session).as("the token is kept in the session").isNotNull();
            assertThat(json(mvc, get("/outbox-console/api/overview").header("Authorization", basic("operator")))
                    .get("operations").get("allowed").asBoolean()).isTrue();

            MockHttpServletResponse withoutToken = perform(mvc, post("/outbox-console/api/records/" + ids.get(0)
                    + "/skip").header("Authorization", basic("operator")).session(session));
            assertThat(withoutToken.getStatus()).as("CSRF").isEqualTo(403);
            assertThat(status(database, ids.get(0))).containsExactly("FAILED");

            JsonAnswer skipped = new JsonAnswer(perform(mvc, post("/outbox-console/api/records/" + ids.get(0)
                    + "/skip").header("Authorization", basic("operator")).header(header, token).session(session)));
            assertThat(skipped.status()).as(skipped.body()).isEqualTo(200);
            assertThat(skipped.body()).contains("\"records\":1");
            assertThat(status(database, ids.get(0))).containsExactly("SKIPPED");

            assertThat(perform(mvc, post("/outbox-console/api/delete-all").header("Authorization", basic("operator"))
                    .session(session)).getStatus()).as("a bulk operation without the CSRF token").isEqualTo(403);
            assertThat(status(database, ids.get(0))).containsExactly("SKIPPED");
        });
    }

    private static String match(Pattern pattern, String html) {
        Matcher matcher = pattern.matcher(html);
        assertThat(matcher.find()).as("%s in the page", pattern).isTrue();
        return matcher.group(1);
    }

    private static String basic(String user) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":secret").getBytes(StandardCharsets.UTF_8));
    }

    private record JsonAnswer(int status, String body) {
        JsonAnswer(MockHttpServletResponse response) throws Exception {
            this(response.getStatus(), response.getContentAsString());
        }
    }

    static class Users {
        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("operator").password("{noop}secret").roles("OUTBOX_OPERATOR").build(),
                    User.withUsername("viewer").password("{noop}secret").roles("VIEWER").build());
        }

        @Bean
        SecurityFilterChain security(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                    .httpBasic(Customizer.withDefaults()).build();
        }
    }
}
