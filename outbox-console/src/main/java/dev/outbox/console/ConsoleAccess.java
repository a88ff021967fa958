package dev.outbox.console;

import dev.outbox.console.ConsoleViews.OperationsState;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import org.jspecify.annotations.Nullable;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Who may see the console and change records. With Spring Security on the class path every request to the console
 * needs {@code outbox.console.role} (Spring Security's own filters, which the application configures, authenticate
 * and check CSRF tokens); operations also need {@code outbox.console.operations-enabled}, and without Spring Security
 * {@code outbox.console.allow-operations-without-security} as well.
 */
final class ConsoleAccess implements HandlerInterceptor {

    static final String OPERATIONS_PROPERTY = "outbox.console.operations-enabled";
    static final String WITHOUT_SECURITY_PROPERTY = "outbox.console.allow-operations-without-security";
    /** Spring Security on the class path: its servlet filters. */
    static final String SECURITY_FILTER_TYPE = "org.springframework.security.web.SecurityFilterChain";
    private static final String CSRF_TOKEN_TYPE = "org.springframework.security.web.csrf.CsrfToken";

    private final OutboxConsoleProperties properties;
    private final boolean securityPresent;

    ConsoleAccess(OutboxConsoleProperties properties, boolean securityPresent) {
        this.properties = properties;
        this.securityPresent = securityPresent;
    }

    /** Whether operations are allowed, and if not, why and the property that would allow them. */
    OperationsState operations() {
        if (!properties.operationsEnabled()) {
            return new OperationsState(false, "operations are disabled: set " + OPERATIONS_PROPERTY + "=true",
                    OPERATIONS_PROPERTY);
        }
        if (!securityPresent && !properties.allowOperationsWithoutSecurity()) {
            return new OperationsState(false, "operations are refused without Spring Security on the class path: "
                    + "set " + WITHOUT_SECURITY_PROPERTY + "=true to allow them to anyone who reaches the page",
                    WITHOUT_SECURITY_PROPERTY);
        }
        return new OperationsState(true, null, null);
    }

    /** The name of who makes the request, for the log. */
    static String who(HttpServletRequest request) {
        Principal principal = request.getUserPrincipal();
        return principal == null ? "anonymous" : principal.getName();
    }

    /** Refuses a request without the role when Spring Security is present. */
    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
            throws IOException {
        if (!securityPresent || request.isUserInRole(properties.role())) {
            return true;
        }
        int status = request.getUserPrincipal() == null ? HttpServletResponse.SC_UNAUTHORIZED
                : HttpServletResponse.SC_FORBIDDEN;
        response.setStatus(status);
        response.setContentType(MediaType.APPLICATION_JSON_VALUE);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write("{\"error\":\"the outbox console requires the role " + properties.role()
                + " (outbox.console.role)\"}");
        return false;
    }

    /** The CSRF token Spring Security put on the request, if any, read without a compile dependency on it. */
    static @Nullable CsrfToken csrfToken(HttpServletRequest request) {
        Object token = request.getAttribute("_csrf");
        if (token == null) {
            return null;
        }
        try {
            // through the public interface: the token's own class need not be accessible
            Class<?> api = Class.forName(CSRF_TOKEN_TYPE, false, token.getClass().getClassLoader());
            Object header = api.getMethod("getHeaderName").invoke(token);
            Object value = api.getMethod("getToken").invoke(token);
            return header instanceof String name && value instanceof String text ? new CsrfToken(name, text) : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** The header a POST carries the token in, and the token. */
    record CsrfToken(String headerName, String token) {
    }
}
