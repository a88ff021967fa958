package dev.outbox.boot.events;

import dev.outbox.jdbc.testing.ReadmeSnippets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's "Publishing Spring application events" shows the code these tests run. */
class OutboxEventsReadmeTest {

    private static final Path EVENTS = Path.of("src/test/java/dev/outbox/boot/events");

    @Test
    void theReadmeShowsTheseLines() {
        ReadmeSnippets.assertInReadme(EVENTS.resolve("ShopEvents.java"), "annotated event");
        ReadmeSnippets.assertInReadme(EVENTS.resolve("ShopEvents.java"), "aggregate event");
        ReadmeSnippets.assertInReadme(EVENTS.resolve("Shipment.java"), "aggregate root");
        ReadmeSnippets.assertInReadme(EVENTS.resolve("modulith/orders/OrderConfirmed.java"), "externalized event");
        ReadmeSnippets.assertInReadme(EVENTS.resolve("modulith/orders/OrderManagement.java"),
                "publish in a transaction");
    }
}
