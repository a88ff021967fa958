package dev.outbox.example.orders;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.MissingNode;

/** A small client of the order service's HTTP API, on {@link HttpClient}. */
final class OrdersApi {

    /** A response: status, Content-Type, Location and the JSON body (missing when the body is empty). */
    record Response(int status, @Nullable String contentType, @Nullable String location, JsonNode body) {

        String text(String field) {
            return body.path(field).asString();
        }

        /** The event types of a {@code GET /orders/{id}/events} response, in order. */
        List<String> eventTypes() {
            List<String> types = new ArrayList<>();
            body.forEach(event -> types.add(event.path("eventType").asString()));
            return types;
        }
    }

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final String baseUrl;
    private final JsonMapper jsonMapper;

    OrdersApi(int port, JsonMapper jsonMapper) {
        this.baseUrl = "http://127.0.0.1:" + port;
        this.jsonMapper = jsonMapper;
    }

    Response get(String path) {
        return send("GET", path, BodyPublishers.noBody());
    }

    Response post(String path, String json) {
        return send("POST", path, BodyPublishers.ofString(json));
    }

    Response post(String path) {
        return send("POST", path, BodyPublishers.noBody());
    }

    Response put(String path, String json) {
        return send("PUT", path, BodyPublishers.ofString(json));
    }

    /** Creates an order and returns its id, failing unless the service answers 201. */
    String createOrder(String customer, String amount) {
        Response created = post("/orders", "{\"customer\":\"" + customer + "\",\"amount\":" + amount + "}");
        if (created.status() != 201) {
            throw new AssertionError("POST /orders answered " + created.status() + ": " + created.body());
        }
        return created.text("id");
    }

    private Response send(String method, String path, BodyPublisher body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(TIMEOUT)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, application/problem+json")
                .method(method, body)
                .build();
        try {
            HttpResponse<String> response = http.send(request, BodyHandlers.ofString());
            String text = response.body();
            JsonNode json = text.isEmpty() ? MissingNode.getInstance() : jsonMapper.readTree(text);
            return new Response(response.statusCode(), response.headers().firstValue("Content-Type").orElse(null),
                    response.headers().firstValue("Location").orElse(null), json);
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + method + " " + path, e);
        }
    }
}
