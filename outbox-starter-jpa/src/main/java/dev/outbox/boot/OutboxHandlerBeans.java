package dev.outbox.boot;

import dev.outbox.OutboxRecordProcessor;
import dev.outbox.handler.AnnotatedHandlers;
import dev.outbox.handler.HandlerRegistration;
import dev.outbox.handler.OutboxHandler;
import dev.outbox.retry.OutboxRetryPolicy;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 * Finds the application's handlers among its beans: {@link HandlerRegistration} beans and the
 * {@link OutboxHandler @OutboxHandler} methods of any bean. Bean types are read from the definitions, without creating
 * the beans; a handler's bean is looked up at each call.
 */
final class OutboxHandlerBeans {

    static final String DEFAULT_POLICY_NAME = "outboxRetryPolicy";

    private OutboxHandlerBeans() {
    }

    static List<HandlerRegistration<?>> annotatedHandlers(ConfigurableListableBeanFactory beanFactory,
            OutboxRetryPolicy defaultPolicy) {
        List<HandlerRegistration<?>> handlers = new ArrayList<>();
        for (String name : beanFactory.getBeanDefinitionNames()) {
            Class<?> type = userType(beanFactory, name);
            if (type != null && declaresHandlers(type)) {
                // Called on the bean as the container hands it out: possibly a proxy, as for @EventListener methods.
                Class<?> beanType = beanFactory.getType(name, false);
                handlers.addAll(AnnotatedHandlers.of(type, beanType == null ? type : beanType,
                        () -> beanFactory.getBean(name), defaultPolicy,
                        policy -> beanFactory.getBean(policy, OutboxRetryPolicy.class)));
            }
        }
        return handlers;
    }

    /**
     * The default retry policy: the application's {@code OutboxRetryPolicy} bean, not counting those that handlers name
     * as their own; {@code outbox.retry.*} when there is none. With several, the one named {@code outboxRetryPolicy},
     * else the {@code @Primary} one.
     */
    static OutboxRetryPolicy defaultRetryPolicy(ConfigurableListableBeanFactory beanFactory,
            Supplier<OutboxRetryPolicy> fromProperties) {
        Set<String> handlerPolicies = new TreeSet<>();
        for (String name : beanFactory.getBeanDefinitionNames()) {
            Class<?> type = userType(beanFactory, name);
            if (type != null) {
                ReflectionUtils.doWithMethods(type,
                        method -> handlerPolicies.add(method.getAnnotation(OutboxHandler.class).retryPolicy()),
                        method -> method.isAnnotationPresent(OutboxHandler.class));
            }
        }
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
            Class<?> type = AutoProxyUtils.determineTargetClass(beanFactory, name);
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

    /** Processing starts when something processes records: a record processor, a handler bean or a handler method. */
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
            for (String name : beanFactory.getBeanDefinitionNames()) {
                Class<?> type = userType(beanFactory, name);
                if (type != null && declaresHandlers(type)) {
                    return ConditionOutcome.match("bean '" + name + "' has @OutboxHandler methods");
                }
            }
            return ConditionOutcome.noMatch("no OutboxRecordProcessor, HandlerRegistration or @OutboxHandler method");
        }
    }
}
