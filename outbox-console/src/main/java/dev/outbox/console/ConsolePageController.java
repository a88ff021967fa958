package dev.outbox.console;

import dev.outbox.console.ConsoleAccess.CsrfToken;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.HtmlUtils;

/**
 * The page, from the jar: its addresses (where the application serves it) and Spring Security's CSRF token, when
 * there is one, are written into it; its scripts and styles are served from {@value #ASSETS}.
 */
@RestController
@RequestMapping("${outbox.console.path:" + OutboxConsoleProperties.DEFAULT_PATH + "}")
class ConsolePageController {

    /** Where the page's files are in the jar. */
    static final String ASSETS = "META-INF/outbox-console/";

    private final String template;

    ConsolePageController() {
        try (InputStream page = new ClassPathResource(ASSETS + "index.html").getInputStream()) {
            this.template = new String(page.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("the outbox console's page is missing from its jar", e);
        }
    }

    @GetMapping({"", "/"})
    ResponseEntity<String> page(HttpServletRequest request) {
        CsrfToken csrf = ConsoleAccess.csrfToken(request);
        String page = template.replace("{{base}}", HtmlUtils.htmlEscape(consolePath(request)))
                .replace("{{csrfHeader}}", csrf == null ? "" : HtmlUtils.htmlEscape(csrf.headerName()))
                .replace("{{csrfToken}}", csrf == null ? "" : HtmlUtils.htmlEscape(csrf.token()));
        return ResponseEntity.ok().contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
                .cacheControl(CacheControl.noStore()).body(page);
    }

    /** The page's own address without a trailing '/': its assets and JSON are below it. */
    private static String consolePath(HttpServletRequest request) {
        String uri = request.getRequestURI();
        return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    }
}
