package dev.outbox;

/** Turns an event object into the payload text stored with the record, typically JSON. */
@FunctionalInterface
public interface PayloadSerializer {

    String serialize(Object event);
}
