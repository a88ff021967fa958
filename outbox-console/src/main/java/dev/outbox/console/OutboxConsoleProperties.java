package dev.outbox.console;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code outbox.console.*}: where the console is served and what it may change.
 *
 * @param enabled whether the console is served at all (when the application has {@code outbox-console})
 * @param path where the page is served; its JSON is under {@code {path}/api}. Starts with '/', does not end with one
 * @param operationsEnabled whether retry, skip and delete are allowed; read-only when false
 * @param role the role the page, its JSON and its operations require when Spring Security is on the class path
 *     (checked with {@code HttpServletRequest.isUserInRole}, so Spring Security's {@code ROLE_} prefix applies)
 * @param allowOperationsWithoutSecurity whether operations are allowed without Spring Security on the class path:
 *     then anyone who reaches the page may retry, skip and delete records
 */
@ConfigurationProperties("outbox.console")
public record OutboxConsoleProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue(DEFAULT_PATH) String path,
        @DefaultValue("false") boolean operationsEnabled,
        @DefaultValue(DEFAULT_ROLE) String role,
        @DefaultValue("false") boolean allowOperationsWithoutSecurity) {

    public static final String DEFAULT_PATH = "/outbox-console";
    public static final String DEFAULT_ROLE = "OUTBOX_OPERATOR";
    /** Longest path accepted; a path is a handful of segments. */
    static final int MAX_PATH_LENGTH = 200;

    public OutboxConsoleProperties {
        if (!path.matches("(/[A-Za-z0-9._~-]+)+") || path.length() > MAX_PATH_LENGTH) {
            throw new IllegalArgumentException("outbox.console.path must be '/' followed by segments of letters, "
                    + "digits, '.', '_', '~' or '-', separated by '/', without a trailing '/', at most "
                    + MAX_PATH_LENGTH + " characters; it is '" + path + "'");
        }
        if (!role.matches("[A-Za-z0-9_]{1,100}")) {
            throw new IllegalArgumentException("outbox.console.role must be 1 to 100 letters, digits or '_'; it is '"
                    + role + "'");
        }
    }
}
