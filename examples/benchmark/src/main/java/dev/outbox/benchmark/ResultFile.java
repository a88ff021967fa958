package dev.outbox.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/** The JSON file a benchmark writes its results to. */
final class ResultFile {

    private ResultFile() {
    }

    static void write(Path out, Map<String, Object> result) {
        try {
            if (out.getParent() != null) {
                Files.createDirectories(out.getParent());
            }
            String json = JsonMapper.builder().build().writerWithDefaultPrettyPrinter().writeValueAsString(result);
            Files.writeString(out, json + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write " + out, e);
        }
    }
}
