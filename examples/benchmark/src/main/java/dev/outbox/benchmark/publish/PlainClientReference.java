package dev.outbox.benchmark.publish;

import java.util.List;

/**
 * A broker's official client publishing the library's messages itself, with the publisher's durability and
 * acknowledgement semantics and at most {@code window} messages unacknowledged: how fast the broker takes them on this
 * machine without the outbox. Each run publishes to a destination of its own and removes it afterwards.
 */
public interface PlainClientReference {

    /**
     * Publishes {@code warmup}, then {@code measured}, each waited for to the last acknowledgement.
     *
     * @return the figures of {@code measured}
     */
    ReferenceRun run(List<ReferenceMessage> warmup, List<ReferenceMessage> measured, int window);
}
