package dev.outbox.context;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.internal.repository.ForwardingRecordRepository;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.spi.RecordContext;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Puts {@link RecordContext}s to work: on the write path, a repository that adds their captured headers to every
 * record it saves; on the processing path, an observation that restores them around every handler call.
 */
public final class RecordContexts {

    private RecordContexts() {
    }

    /**
     * {@code repository}, adding to each saved record the headers the contexts capture at that moment (a header the
     * record has already keeps its value). Wrap it outside a fan-out, so every handler's copy carries them.
     */
    public static OutboxRecordRepository capturing(OutboxRecordRepository repository, List<RecordContext> contexts) {
        return contexts.isEmpty() ? repository : new Capturing(repository, List.copyOf(contexts));
    }

    /** {@code observation}, with the contexts of the record restored around each handler call and undone after. */
    public static OutboxObservation restoring(OutboxObservation observation, List<RecordContext> contexts) {
        return contexts.isEmpty() ? observation : new Restoring(observation, List.copyOf(contexts));
    }

    private static final class Capturing extends ForwardingRecordRepository {

        private final List<RecordContext> contexts;

        Capturing(OutboxRecordRepository delegate, List<RecordContext> contexts) {
            super(delegate);
            this.contexts = contexts;
        }

        @Override
        public OutboxRecord save(OutboxRecord record) {
            Map<String, String> captured = new LinkedHashMap<>();
            contexts.forEach(context -> context.capture().forEach(captured::putIfAbsent));
            return delegate.save(record.withHeaders(captured));
        }
    }

    private static final class Restoring implements OutboxObservation {

        private final OutboxObservation delegate;
        private final List<RecordContext> contexts;

        Restoring(OutboxObservation delegate, List<RecordContext> contexts) {
            this.delegate = delegate;
            this.contexts = contexts;
        }

        @Override
        public @Nullable String contextForWrite(OutboxRecord record) {
            return delegate.contextForWrite(record);
        }

        /** Inside the delegate's observation, so that the handler's span is current while the contexts are set. */
        @Override
        public void observeProcessing(OutboxRecord record, HandlerCall call) throws Exception {
            delegate.observeProcessing(record, () -> runRestored(record, call));
        }

        @Override
        public PublishEnd observePublish(OutboxRecord record, HandlerCall call) throws Exception {
            return delegate.observePublish(record, () -> runRestored(record, call));
        }

        private void runRestored(OutboxRecord record, HandlerCall call) throws Exception {
            Deque<RecordContext.Scope> scopes = new ArrayDeque<>();
            try {
                for (RecordContext context : contexts) {
                    scopes.push(context.restore(record.getHeaders()));
                }
                call.run();
            } finally {
                while (!scopes.isEmpty()) {
                    scopes.pop().close();
                }
            }
        }
    }
}
