package dev.outbox.boot.publish;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.jdbc.testing.ReadmeSnippets;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every {@code outbox.kafka.*}, {@code outbox.rabbitmq.*}, {@code outbox.nats.*} and {@code outbox.events.*}
 * property in the generated configuration metadata has a description and is in the configuration
 * reference (docs/configuration.md), by its own name or as {@code outbox.<broker>.<name>}.
 */
class PublisherPropertiesDocumentedTest {

    @Test
    void everyPublisherPropertyIsDescribedAndInTheConfigurationReference() throws Exception {
        JsonNode metadata;
        try (InputStream in = getClass().getClassLoader()
                .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            metadata = new ObjectMapper().readTree(in);
        }
        String reference = ReadmeSnippets.page("docs/configuration.md");
        List<String> names = new ArrayList<>();
        for (JsonNode property : metadata.get("properties")) {
            String name = property.get("name").asText();
            String broker = name.split("\\.")[1];
            if (!List.of("kafka", "rabbitmq", "nats", "events").contains(broker)) {
                continue;
            }
            names.add(name);
            assertThat(property.path("description").asText()).as("description of %s", name).isNotBlank();
            String generic = name.replace("outbox." + broker + ".", "outbox.<broker>.");
            String last = name.substring(name.lastIndexOf('.') + 1);
            assertThat(reference.contains("`" + name) || reference.contains("`" + generic)
                    || reference.contains("`" + last + "`") && reference.contains("`outbox." + broker + "."))
                    .as("%s in docs/configuration.md", name).isTrue();
        }
        assertThat(names).as("publisher properties in the metadata").hasSizeGreaterThan(30);
    }
}
