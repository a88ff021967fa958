package dev.outbox.events;

import dev.outbox.OutboxRecord;
import dev.outbox.publish.OutboxRouter;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.modulith.events.Externalized;
import org.springframework.util.ClassUtils;

/**
 * Spring Modulith's {@code @Externalized} events through the outbox: {@code @Externalized("orders::#{#this.orderId}")}
 * writes each event as a record whose aggregate id is the key ({@code #{..}} is evaluated on the event, anything else
 * is taken as it is), and whose destination is the target ({@code orders}): the Kafka topic, the RabbitMQ exchange
 * (with the key as routing key), the NATS subject. The event type is the class's simple name.
 *
 * <p>The processing instances route by event type, so they learn the targets before any event is published: from
 * {@link #scan(ClassLoader, Collection) a scan} of the application's packages at startup, and from every class seen
 * on the way to the outbox. A target is a fixed name; a target computed from the event is refused. Thread-safe.
 */
public final class ExternalizedEvents {

    private static final String SEPARATOR = "::";
    private static final TemplateParserContext TEMPLATE = new TemplateParserContext();

    private final Map<String, Target> targetsByEventType = new ConcurrentHashMap<>();

    ExternalizedEvents() {
    }

    private record Target(String name, Class<?> eventClass) {
    }

    /** The target of the event type, when it is an {@code @Externalized} event's. */
    public Optional<String> targetOf(String eventType) {
        return Optional.ofNullable(targetsByEventType.get(eventType)).map(Target::name);
    }

    /**
     * A router that sends an {@code @Externalized} event's record to its target, and every other record where
     * {@code others} says.
     *
     * @param destination the broker's destination for a target and a record (a RabbitMQ exchange and the record's
     *     aggregate id as routing key, say)
     */
    public <D> OutboxRouter<D> routing(BiFunction<String, OutboxRecord, D> destination, OutboxRouter<D> others) {
        return record -> {
            Optional<String> target = targetOf(record.getEventType());
            return target.isPresent() ? destination.apply(target.get(), record) : others.destinationFor(record);
        };
    }

    /**
     * Registers every class annotated {@code @Externalized} under {@code basePackages}.
     *
     * @return how many were found
     * @throws IllegalArgumentException when one cannot work (no key, a computed target), or two classes of the same
     *     simple name have different targets
     */
    public int scan(ClassLoader classLoader, Collection<String> basePackages) {
        ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false) {
            @Override
            protected boolean isCandidateComponent(AnnotatedBeanDefinition definition) {
                return !definition.getMetadata().isAnnotation();
            }
        };
        scanner.addIncludeFilter(new AnnotationTypeFilter(Externalized.class));
        int found = 0;
        for (String basePackage : basePackages) {
            for (BeanDefinition candidate : scanner.findCandidateComponents(basePackage)) {
                Class<?> type = ClassUtils.resolveClassName(String.valueOf(candidate.getBeanClassName()), classLoader);
                register(type, target(type, annotation(type)));
                found++;
            }
        }
        return found;
    }

    @Nullable EventMapping mappingOf(Class<?> type, SpelExpressionParser parser) {
        Externalized annotation = annotation(type);
        if (annotation == null) {
            return null;
        }
        String value = annotation.target();
        String target = target(type, annotation);
        String key = value.substring(value.indexOf(SEPARATOR) + SEPARATOR.length()).strip();
        String source = "@Externalized(\"" + value + "\")";
        EventMapping mapping;
        if (key.contains(TEMPLATE.getExpressionPrefix())) {
            Expression expression;
            try {
                expression = parser.parseExpression(key, TEMPLATE);
            } catch (ParseException e) {
                throw new IllegalArgumentException(type.getName() + ": the key of " + source
                        + " is not a valid SpEL template: " + e.getMessage(), e);
            }
            mapping = EventMapping.of(type, source, event -> EventMappings.evaluate(expression, event),
                    type.getSimpleName());
        } else {
            mapping = EventMapping.of(type, source, event -> key, type.getSimpleName());
        }
        register(type, target);
        return mapping;
    }

    private static @Nullable Externalized annotation(Class<?> type) {
        return AnnotatedElementUtils.findMergedAnnotation(type, Externalized.class);
    }

    private static String target(Class<?> type, @Nullable Externalized annotation) {
        String value = annotation == null ? "" : annotation.target();
        int separator = value.indexOf(SEPARATOR);
        String target = separator < 0 ? value.strip() : value.substring(0, separator).strip();
        String key = separator < 0 ? "" : value.substring(separator + SEPARATOR.length()).strip();
        String source = "@Externalized(\"" + value + "\")";
        if (target.isEmpty() || key.isEmpty()) {
            throw new IllegalArgumentException(type.getName() + ": " + source + " needs a target and a key, e.g. "
                    + "@Externalized(\"orders::#{#this.orderId}\"): the key is the outbox record's aggregate id, "
                    + "which keeps one aggregate's events in order");
        }
        if (target.contains(TEMPLATE.getExpressionPrefix())) {
            throw new IllegalArgumentException(type.getName() + ": the target of " + source + " is computed from "
                    + "the event; the outbox routes by event type and needs a fixed target");
        }
        return target;
    }

    private void register(Class<?> type, String target) {
        Target known = targetsByEventType.putIfAbsent(type.getSimpleName(), new Target(target, type));
        if (known != null && !known.eventClass().equals(type) && !known.name().equals(target)) {
            throw new IllegalArgumentException("event type " + type.getSimpleName() + " is externalized to '"
                    + known.name() + "' by " + known.eventClass().getName() + " and to '" + target + "' by "
                    + type.getName() + ": one event type, one target");
        }
    }
}
