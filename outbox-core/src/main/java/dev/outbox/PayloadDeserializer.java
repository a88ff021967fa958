package dev.outbox;

import java.lang.reflect.Type;

/** Reads a stored payload back as an object of a handler's parameter type, typically from JSON. */
@FunctionalInterface
public interface PayloadDeserializer {

    /** Throws when the payload cannot be read as {@code type}; the record then fails without retries. */
    Object deserialize(String payload, Type type) throws Exception;
}
