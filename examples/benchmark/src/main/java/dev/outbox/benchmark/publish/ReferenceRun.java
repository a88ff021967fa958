package dev.outbox.benchmark.publish;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one plain-client run measured.
 *
 * @param messages messages published and acknowledged
 * @param firstToLastAckSeconds from the first acknowledgement to the last: the span the library's drain rate uses
 *     (first to last {@code completed_at})
 * @param sendToLastAckSeconds from the first send to the last acknowledgement
 * @param settings the client's durability and acknowledgement settings, in words
 */
public record ReferenceRun(int messages, int window, double firstToLastAckSeconds, double sendToLastAckSeconds,
        String settings) {

    /** Messages per second over the same span as the drain: {@code messages - 1} over first → last acknowledgement. */
    public double messagesPerSecond() {
        return firstToLastAckSeconds <= 0 ? 0 : Math.round((messages - 1) / firstToLastAckSeconds);
    }

    public Map<String, Object> describe() {
        Map<String, Object> described = new LinkedHashMap<>();
        described.put("messages", messages);
        described.put("window", window);
        described.put("messagesPerSecond", messagesPerSecond());
        described.put("firstToLastAckSeconds", firstToLastAckSeconds);
        described.put("sendToLastAckSeconds", sendToLastAckSeconds);
        described.put("timing", "messages - 1 over the first to the last acknowledgement, as the drain's rate");
        described.put("settings", settings);
        return described;
    }
}
