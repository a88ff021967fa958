package dev.outbox.boot.events;

import dev.outbox.jdbc.testing.ReadmeSnippets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/spring-events.md shows the code these tests run. */
class OutboxEventsReadmeTest {

    private static final Path EVENTS = Path.of("src/test/java/dev/outbox/boot/events");

    @Test
    void theReadmeShowsTheseLines() {
        ReadmeSnippets.assertInDocs(EVENTS.resolve("ShopEvents.java"), "annotated event");
        ReadmeSnippets.assertInDocs(EVENTS.resolve("ShopEvents.java"), "aggregate event");
        ReadmeSnippets.assertInDocs(EVENTS.resolve("Shipment.java"), "aggregate root");
        ReadmeSnippets.assertInDocs(EVENTS.resolve("modulith/orders/OrderConfirmed.java"), "externalized event");
        ReadmeSnippets.assertInDocs(EVENTS.resolve("modulith/orders/OrderManagement.java"),
                "publish in a transaction");
    }
}
