package dev.outbox.boot;

import dev.outbox.OutboxRecordProcessor;
import dev.outbox.handler.AnnotatedHandlers;
import dev.outbox.handler.HandlerRegistration;
import dev.outbox.handler.OutboxHandler;
import dev.outbox.publish.PublisherRegistration;
import dev.outbox.retry.OutboxRetryPolicy;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The application's {@link OutboxHandler @OutboxHandler} methods among its beans, found once from the bean definitions
 * without creating the beans (a handler's bean is looked up at each call), and the default retry policy among its
 * {@link OutboxRetryPolicy} beans.
 */
final class OutboxHandlerBeans {

    static final String DEFAULT_POLICY_NAME = "outboxRetryPolicy";

    private final ConfigurableListableBeanFactory beanFactory;
    private final OutboxProperties.Retry retry;
    private @Nullable OutboxRetryPolicy defaultPolicy;
    /** Bean name → the class declaring its handler methods. */
    private final Map<String, Class<?>> handlerBeans = new LinkedHashMap<>();
    /** The retry policy beans that handlers name as their own. */
    private final Set<String> handlerPolicies = new TreeSet<>();

    OutboxHandlerBeans(ConfigurableListableBeanFactory beanFactory, OutboxProperties.Retry retry) {
        this.beanFactory = beanFactory;
        this.retry = retry;
        for (String name : beanFactory.getBeanDefinitionNames()) {
            Class<?> type = userType(beanFactory, name);
            if (type != null && declaresHandlers(type)) {
                handlerBeans.put(name, type);
                ReflectionUtils.doWithMethods(type,
                        method -> handlerPolicies.add(method.getAnnotation(OutboxHandler.class).retryPolicy()),
                        method -> method.isAnnotationPresent(OutboxHandler.class));
            }
        }
    }

    /** The registrations of every {@code @OutboxHandler} method; see {@link AnnotatedHandlers}. */
    List<HandlerRegistration<?>> registrations() {
        OutboxRetryPolicy defaultPolicy = defaultRetryPolicy();
        List<HandlerRegistration<?>> handlers = new ArrayList<>();
        handlerBeans.forEach((name, type) -> {
            // Called on the bean as the container hands it out: possibly a proxy, as for @EventListener methods.
            Class<?> beanType = beanFactory.getType(name, false);
            handlers.addAll(AnnotatedHandlers.of(type, beanType == null ? type : beanType,
                    () -> beanFactory.getBean(name), defaultPolicy,
                    policy -> beanFactory.getBean(policy, OutboxRetryPolicy.class)));
        });
        return handlers;
    }

    /**
     * The policy of records whose handler has none: the application's {@code OutboxRetryPolicy} bean (see
     * {@link #choosePolicy}), or {@code outbox.retry.*} when there is none, bounded by {@code outbox.retry.max-retries}
     * unless it has a bound of its own. Chosen once.
     */
    synchronized OutboxRetryPolicy defaultRetryPolicy() {
        if (defaultPolicy == null) {
            defaultPolicy = choosePolicy(retry::toPolicy).withDefaultMaxRetries(retry.maxRetries());
        }
        return defaultPolicy;
    }

    /**
     * Which bean is the default policy: the application's {@code OutboxRetryPolicy} bean, not counting those that
     * handlers name as their own; {@code fromProperties} when there is none. With several, the one named
     * {@code outboxRetryPolicy}, else the {@code @Primary} one.
     */
    OutboxRetryPolicy choosePolicy(Supplier<OutboxRetryPolicy> fromProperties) {
        List<String> candidates = Arrays.stream(beanFactory.getBeanNamesForType(OutboxRetryPolicy.class))
                .filter(name -> !handlerPolicies.contains(name)).toList();
        if (candidates.isEmpty()) {
            return fromProperties.get();
        }
        if (candidates.size() == 1) {
            return beanFactory.getBean(candidates.get(0), OutboxRetryPolicy.class);
        }
        if (candidates.contains(DEFAULT_POLICY_NAME)) {
            return beanFactory.getBean(DEFAULT_POLICY_NAME, OutboxRetryPolicy.class);
        }
        List<String> primary = candidates.stream()
                .filter(name -> beanFactory.containsBeanDefinition(name)
                        && beanFactory.getBeanDefinition(name).isPrimary())
                .toList();
        if (primary.size() == 1) {
            return beanFactory.getBean(primary.get(0), OutboxRetryPolicy.class);
        }
        throw new IllegalStateException("Outbox: " + candidates.size() + " OutboxRetryPolicy beans " + candidates
                + " could each be the default retry policy; make the default one @Primary or name it '"
                + DEFAULT_POLICY_NAME + "', or name the others in @OutboxHandler(retryPolicy = ...)");
    }

    /** The class declaring a bean's methods: its target class when it is an auto-proxy. */
    private static @Nullable Class<?> userType(ConfigurableListableBeanFactory beanFactory, String name) {
        if (ScopedProxyUtils.isScopedTarget(name)) {
            return null;
        }
        try {
            // The auto-proxy creator notes the target class of a proxied bean; otherwise the bean's own type, told
            // without initialising a FactoryBean early.
            Object target = beanFactory.containsBeanDefinition(name) ? beanFactory.getBeanDefinition(name)
                    .getAttribute(AutoProxyUtils.ORIGINAL_TARGET_CLASS_ATTRIBUTE) : null;
            Class<?> type = target instanceof Class<?> targetClass ? targetClass : beanFactory.getType(name, false);
            return type == null ? null : ClassUtils.getUserClass(type);
        } catch (RuntimeException e) {
            return null; // a definition whose type cannot be told without creating it declares no handler we can see
        }
    }

    private static boolean declaresHandlers(Class<?> type) {
        boolean[] found = {false};
        ReflectionUtils.doWithMethods(type, method -> found[0] = true,
                (Method method) -> !found[0] && method.isAnnotationPresent(OutboxHandler.class));
        return found[0];
    }

    /**
     * Processing starts when something processes records: a record processor, a handler or publisher bean, or a
     * handler method. Publisher auto-configurations run before the processing one, so their beans count.
     */
    static final class OnHandlersCondition extends SpringBootCondition implements ConfigurationCondition {

        /** Like {@code @ConditionalOnBean}: judged once the application's own bean definitions are registered. */
        @Override
        public ConfigurationPhase getConfigurationPhase() {
            return ConfigurationPhase.REGISTER_BEAN;
        }

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
            if (beanFactory == null) {
                return ConditionOutcome.noMatch("no bean factory");
            }
            if (beanFactory.getBeanNamesForType(OutboxRecordProcessor.class, true, false).length > 0) {
                return ConditionOutcome.match("found an OutboxRecordProcessor bean");
            }
            if (beanFactory.getBeanNamesForType(HandlerRegistration.class, true, false).length > 0) {
                return ConditionOutcome.match("found a HandlerRegistration bean");
            }
            if (beanFactory.getBeanNamesForType(PublisherRegistration.class, true, false).length > 0) {
                return ConditionOutcome.match("found a PublisherRegistration bean");
            }
            for (String name : beanFactory.getBeanDefinitionNames()) {
                Class<?> type = userType(beanFactory, name);
                if (type != null && declaresHandlers(type)) {
                    return ConditionOutcome.match("bean '" + name + "' has @OutboxHandler methods");
                }
            }
            return ConditionOutcome.noMatch("no OutboxRecordProcessor, HandlerRegistration, PublisherRegistration or "
                    + "@OutboxHandler method");
        }
    }
}
