package dev.outbox.internal;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Helpers for the stages publishers return. */
public final class Futures {

    private Futures() {
    }

    /** The failure inside the {@link CompletionException} or {@link ExecutionException} wrappers of a stage. */
    public static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
