package dev.outbox.events;

import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.util.ClassUtils;

/**
 * Which application events go to the outbox, and how: a class annotated {@link OutboxEvent}, implementing
 * {@link AggregateEvent}, or (with Spring Modulith's events API on the class path) annotated {@code @Externalized}.
 * Worked out once per class; a class with none of them costs one lookup per event. Thread-safe.
 */
public final class EventMappings {

    private static final String EXTERNALIZED = "org.springframework.modulith.events.Externalized";

    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final @Nullable ExternalizedEvents externalized;
    private final ClassValue<Optional<EventMapping>> byClass = new ClassValue<>() {
        @Override
        protected Optional<EventMapping> computeValue(Class<?> type) {
            return Optional.ofNullable(mappingOf(type));
        }
    };

    private EventMappings(@Nullable ExternalizedEvents externalized) {
        this.externalized = externalized;
    }

    /** The mappings, with {@code @Externalized} when Spring Modulith's events API is on {@code classLoader}'s path. */
    public static EventMappings create(@Nullable ClassLoader classLoader) {
        return new EventMappings(ClassUtils.isPresent(EXTERNALIZED, classLoader) ? new ExternalizedEvents() : null);
    }

    /** Spring Modulith's {@code @Externalized} events, when its events API is on the class path. */
    public Optional<ExternalizedEvents> externalized() {
        return Optional.ofNullable(externalized);
    }

    /**
     * How events of {@code type} become records, or empty when they do not go to the outbox.
     *
     * @throws IllegalArgumentException naming the class when its mark cannot work (an expression that does not parse,
     *     an {@code @Externalized} target without a key)
     */
    public Optional<EventMapping> forClass(Class<?> type) {
        return byClass.get(type);
    }

    private @Nullable EventMapping mappingOf(Class<?> type) {
        OutboxEvent annotation = AnnotatedElementUtils.findMergedAnnotation(type, OutboxEvent.class);
        if (annotation != null) {
            String source = "@OutboxEvent(aggregateId = \"" + annotation.aggregateId() + "\")";
            Expression expression = parse(type, source, annotation.aggregateId());
            return EventMapping.of(type, source, event -> evaluate(expression, event),
                    annotation.eventType().isBlank() ? null : annotation.eventType());
        }
        if (AggregateEvent.class.isAssignableFrom(type)) {
            return EventMapping.of(type, "AggregateEvent.aggregateId()",
                    event -> ((AggregateEvent) event).aggregateId(), null);
        }
        return externalized == null ? null : externalized.mappingOf(type, parser);
    }

    /**
     * The expression's value on {@code event}, in a context of its own: an evaluation context is not made to be
     * shared between threads. The expressions come from the application's own annotations, so the full context.
     */
    static @Nullable Object evaluate(Expression expression, Object event) {
        return expression.getValue(new StandardEvaluationContext(event));
    }

    private Expression parse(Class<?> type, String source, String expression) {
        if (expression.isBlank()) {
            throw new IllegalArgumentException(type.getName() + ": " + source + " has no expression");
        }
        try {
            return parser.parseExpression(expression);
        } catch (ParseException e) {
            throw new IllegalArgumentException(type.getName() + ": the aggregate id of " + source
                    + " is not a valid SpEL expression: " + e.getMessage(), e);
        }
    }
}
