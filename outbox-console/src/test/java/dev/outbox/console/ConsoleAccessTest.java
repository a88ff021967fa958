package dev.outbox.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.outbox.console.ConsoleViews.OperationsState;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/**
 * The gates that need no application: the role check as Spring Security's request wrapper answers it (which the
 * tests here cannot bring: Spring Security is not in this build), the operations' switches, and the properties' checks.
 */
class ConsoleAccessTest {

    @Test
    void withSpringSecurityEveryRequestNeedsTheRole() throws Exception {
        ConsoleAccess access = new ConsoleAccess(properties("/outbox-console", true, false), true);

        MockHttpServletResponse anonymous = new MockHttpServletResponse();
        assertThat(access.preHandle(new MockHttpServletRequest("GET", "/outbox-console"), anonymous, this)).isFalse();
        assertThat(anonymous.getStatus()).isEqualTo(401);
        assertThat(anonymous.getContentAsString()).contains("OUTBOX_OPERATOR", "outbox.console.role");

        MockHttpServletRequest viewer = new MockHttpServletRequest("GET", "/outbox-console");
        viewer.setUserPrincipal(() -> "viewer");
        viewer.addUserRole("VIEWER");
        MockHttpServletResponse forbidden = new MockHttpServletResponse();
        assertThat(access.preHandle(viewer, forbidden, this)).isFalse();
        assertThat(forbidden.getStatus()).isEqualTo(403);

        MockHttpServletRequest operator = new MockHttpServletRequest("POST", "/outbox-console/api/retry-all");
        operator.setUserPrincipal(() -> "operator");
        operator.addUserRole("OUTBOX_OPERATOR");
        assertThat(access.preHandle(operator, new MockHttpServletResponse(), this)).isTrue();
        assertThat(ConsoleAccess.who(operator)).isEqualTo("operator");
        assertThat(ConsoleAccess.who(new MockHttpServletRequest())).isEqualTo("anonymous");
    }

    @Test
    void withoutSpringSecurityNoRoleIsAskedFor() throws Exception {
        ConsoleAccess access = new ConsoleAccess(properties("/outbox-console", false, false), false);

        assertThat(access.preHandle(new MockHttpServletRequest("GET", "/outbox-console"),
                new MockHttpServletResponse(), this)).isTrue();
    }

    @Test
    void operationsNeedTheirSwitchAndWithoutSecurityTheOptIn() {
        OperationsState disabled = new ConsoleAccess(properties("/c", false, true), false).operations();
        assertThat(disabled.allowed()).isFalse();
        assertThat(disabled.property()).isEqualTo("outbox.console.operations-enabled");
        assertThat(disabled.refusal()).doesNotContain("allow-operations-without-security");
        OperationsState withoutOptIn = new ConsoleAccess(properties("/c", true, false), false).operations();
        assertThat(withoutOptIn.allowed()).isFalse();
        assertThat(withoutOptIn.property()).isEqualTo("outbox.console.allow-operations-without-security");
        assertThat(withoutOptIn.refusal()).contains("outbox.console.allow-operations-without-security=true");
        assertThat(new ConsoleAccess(properties("/c", true, true), false).operations().allowed()).isTrue();
        assertThat(new ConsoleAccess(properties("/c", true, false), true).operations())
                .as("with Spring Security the role guards them").isEqualTo(new OperationsState(true, null, null));
        assertThat(new ConsoleAccess(properties("/c", false, false), true).operations().allowed()).isFalse();
    }

    @Test
    void theCsrfTokenIsReadFromSpringSecuritysRequestAttributeWhenThereIsOne() {
        assertThat(ConsoleAccess.csrfToken(new MockHttpServletRequest())).isNull();
        MockHttpServletRequest notAToken = new MockHttpServletRequest();
        notAToken.setAttribute("_csrf", "text");
        assertThat(ConsoleAccess.csrfToken(notAToken)).as("no Spring Security here to read it with").isNull();
    }

    @Test
    void badPathsAndRolesAreRefusedNamingTheProperty() {
        for (String path : new String[] {"", "/", "outbox", "/outbox/", "/a b", "/a//b", "/" + "x".repeat(200)}) {
            assertThatIllegalArgumentException().as(path).isThrownBy(() -> properties(path, false, false))
                    .withMessageContaining("outbox.console.path").withMessageContaining("200");
        }
        assertThatIllegalArgumentException().isThrownBy(() -> new OutboxConsoleProperties(true, "/c", false,
                "ROLE-X", false)).withMessageContaining("outbox.console.role");
        assertThat(properties("/ops/outbox-console", false, false).path()).isEqualTo("/ops/outbox-console");
    }

    private static OutboxConsoleProperties properties(String path, boolean operations, boolean withoutSecurity) {
        return new OutboxConsoleProperties(true, path, operations, OutboxConsoleProperties.DEFAULT_ROLE,
                withoutSecurity);
    }
}
