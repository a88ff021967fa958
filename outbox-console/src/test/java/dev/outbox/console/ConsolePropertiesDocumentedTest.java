package dev.outbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every {@code outbox.console.*} property of the generated configuration metadata has a description and is in the
 * console's page of the docs and in the configuration reference, with its default.
 */
class ConsolePropertiesDocumentedTest {

    @Test
    void everyConsolePropertyIsDescribedAndDocumented() throws Exception {
        JsonNode metadata;
        try (InputStream in = getClass().getClassLoader()
                .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            metadata = JsonMapper.builder().build().readTree(in);
        }
        String console = Files.readString(Path.of("../docs/console.md"));
        String reference = Files.readString(Path.of("../docs/configuration.md"));
        List<String> names = new ArrayList<>();
        for (JsonNode property : metadata.get("properties")) {
            String name = property.get("name").asString();
            if (!name.startsWith("outbox.console.")) {
                continue;
            }
            names.add(name);
            assertThat(property.path("description").asString()).as("description of %s", name).isNotBlank();
            String row = "| `" + name + "` | `" + property.get("defaultValue").asString() + "` |";
            assertThat(console).as("docs/console.md").contains(row);
            assertThat(reference).as("docs/configuration.md").contains(row);
        }
        assertThat(names).containsExactlyInAnyOrder("outbox.console.enabled", "outbox.console.path",
                "outbox.console.operations-enabled", "outbox.console.role",
                "outbox.console.allow-operations-without-security");
    }
}
