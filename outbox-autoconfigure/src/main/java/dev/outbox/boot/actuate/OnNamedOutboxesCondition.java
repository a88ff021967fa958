package dev.outbox.boot.actuate;

import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when {@code outbox.outboxes} names at least one outbox, in whichever form the properties are given. */
final class OnNamedOutboxesCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Map<String, Object> outboxes = Binder.get(context.getEnvironment())
                .bind("outbox.outboxes", Bindable.mapOf(String.class, Object.class)).orElse(Map.of());
        return outboxes.isEmpty() ? ConditionOutcome.noMatch("no outbox.outboxes")
                : ConditionOutcome.match("outbox.outboxes names " + outboxes.keySet());
    }
}
