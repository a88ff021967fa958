package dev.outbox.handler;

import dev.outbox.OutboxFallbackHandler;
import dev.outbox.OutboxRecord;
import dev.outbox.processing.HandlerInvocationException;
import dev.outbox.retry.OutboxRetryPolicy;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Turns the {@link OutboxHandler @OutboxHandler} methods of a class into {@link HandlerRegistration}s. Mistakes in a
 * declaration (a method that is not public, a second payload parameter, an unknown fallback) fail here, at startup,
 * naming the method; so does a method that cannot be called at all (a proxy that does not reach it, a module that does
 * not open its package). A public method is called whatever the visibility of its class, as Spring calls
 * {@code @EventListener} methods.
 */
public final class AnnotatedHandlers {

    private AnnotatedHandlers() {
    }

    /** The handlers of {@code bean}; named retry policies are not available. */
    public static List<HandlerRegistration<?>> of(Object bean, OutboxRetryPolicy defaultPolicy) {
        return of(bean.getClass(), () -> bean, defaultPolicy, name -> {
            throw new IllegalArgumentException("no retry policy named '" + name + "' is available");
        });
    }

    /** {@link #of(Class, Class, Supplier, OutboxRetryPolicy, Function)} for a bean that is of the declaring type. */
    public static List<HandlerRegistration<?>> of(Class<?> type, Supplier<?> target, OutboxRetryPolicy defaultPolicy,
            Function<String, OutboxRetryPolicy> retryPolicies) {
        return of(type, type, target, defaultPolicy, retryPolicies);
    }

    /**
     * The handlers declared by {@code type}, in the order of their ids, each calling its method on {@code target}
     * (looked up at each call, so a container may create the bean late).
     *
     * @param type the class that declares the handler methods (a proxy's target class)
     * @param beanType the class of what {@code target} supplies: {@code type}, a subclass, or a proxy implementing
     *     interfaces that declare the handler methods
     * @param defaultPolicy the policy that {@link OutboxHandler#maxRetries()} bounds when no policy is named
     * @param retryPolicies finds the policy named by {@link OutboxHandler#retryPolicy()}; throws when there is none
     */
    public static List<HandlerRegistration<?>> of(Class<?> type, Class<?> beanType, Supplier<?> target,
            OutboxRetryPolicy defaultPolicy, Function<String, OutboxRetryPolicy> retryPolicies) {
        List<HandlerRegistration<?>> handlers = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method method : c.getDeclaredMethods()) {
                OutboxHandler annotation = method.getAnnotation(OutboxHandler.class);
                if (annotation != null && !method.isBridge() && !method.isSynthetic()) {
                    handlers.add(registration(type, beanType, method, annotation, target, defaultPolicy,
                            retryPolicies));
                }
            }
        }
        // Reflection gives methods in no defined order; fan-out order (and which record keeps the id) must not vary.
        handlers.sort(Comparator.comparing(HandlerRegistration::getId));
        return handlers;
    }

    private static HandlerRegistration<?> registration(Class<?> type, Class<?> beanType, Method method,
            OutboxHandler annotation, Supplier<?> target, OutboxRetryPolicy defaultPolicy,
            Function<String, OutboxRetryPolicy> retryPolicies) {
        String where = "@OutboxHandler method " + type.getName() + "." + method.getName();
        if (!Modifier.isPublic(method.getModifiers()) || Modifier.isStatic(method.getModifiers())) {
            throw new IllegalStateException(where + " must be a public instance method");
        }
        Method invocable = invocable(method, beanType, where);
        Type[] parameterTypes = method.getGenericParameterTypes();
        int payloadIndex = -1;
        for (int i = 0; i < parameterTypes.length; i++) {
            if (!isMetadata(method.getParameterTypes()[i])) {
                if (payloadIndex >= 0) {
                    throw new IllegalStateException(where + " has two payload parameters; it takes one payload and "
                            + "optionally RecordMetadata or OutboxRecord");
                }
                payloadIndex = i;
            }
        }
        if (payloadIndex < 0) {
            throw new IllegalStateException(where + " has no payload parameter");
        }
        Class<?> payloadClass = method.getParameterTypes()[payloadIndex];
        int payload = payloadIndex;
        HandlerRegistration.Builder<Object> builder;
        try {
            builder = HandlerRegistration.builder(annotation.id(), parameterTypes[payloadIndex],
                    payloadClass.getSimpleName());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(where + ": " + e.getMessage(), e);
        }
        if (!annotation.eventType().isEmpty()) {
            builder.eventType(annotation.eventType());
        }
        OutboxRetryPolicy policy = annotation.retryPolicy().isEmpty() ? null
                : Objects.requireNonNull(retryPolicies.apply(annotation.retryPolicy()), annotation.retryPolicy());
        if (annotation.maxRetries() >= 0) {
            policy = (policy == null ? defaultPolicy : policy).withMaxRetries(annotation.maxRetries());
        } else if (annotation.maxRetries() != -1) {
            throw new IllegalStateException(where + ": maxRetries must be >= 0 (or -1 for the default) but was "
                    + annotation.maxRetries());
        }
        builder.retryPolicy(policy).transactional(annotation.transactional());
        if (!annotation.fallback().isEmpty()) {
            builder.fallback(fallback(type, beanType, where, annotation.fallback(), target));
        }
        Class<?>[] parameterClasses = method.getParameterTypes();
        return builder.handler((event, metadata) -> {
            Object[] arguments = new Object[parameterClasses.length];
            for (int i = 0; i < arguments.length; i++) {
                arguments[i] = i == payload ? event : metadataArgument(parameterClasses[i], metadata);
            }
            call(invocable, where, target.get(), arguments);
        }).build();
    }

    /**
     * The method to call on a bean of {@code beanType}, made accessible: {@code method} itself, or, on a proxy that
     * does not extend its class, the same method of an interface the proxy implements. Fails naming the handler when
     * there is none, or when the method cannot be made accessible.
     */
    private static Method invocable(Method method, Class<?> beanType, String where) {
        Method invocable = method.getDeclaringClass().isAssignableFrom(beanType) ? method
                : onInterfaceOf(beanType, method);
        if (invocable == null) {
            throw new IllegalStateException(where + " cannot be called on its bean, a " + beanType.getName()
                    + ", which neither extends " + method.getDeclaringClass().getName() + " nor implements an "
                    + "interface declaring the method; proxy the class itself, or declare the method in an interface");
        }
        if (!invocable.trySetAccessible()) {
            throw new IllegalStateException(where + " cannot be called: its class is not public and its module "
                    + invocable.getDeclaringClass().getModule() + " does not open package "
                    + invocable.getDeclaringClass().getPackageName() + " to the outbox; make the class public or "
                    + "open the package");
        }
        return invocable;
    }

    private static @Nullable Method onInterfaceOf(Class<?> beanType, Method method) {
        for (Class<?> c = beanType; c != null; c = c.getSuperclass()) {
            for (Class<?> candidate : c.getInterfaces()) {
                try {
                    return candidate.getMethod(method.getName(), method.getParameterTypes());
                } catch (NoSuchMethodException notThisOne) {
                    // look further
                }
            }
        }
        return null;
    }

    private static boolean isMetadata(Class<?> parameter) {
        return parameter == RecordMetadata.class || parameter == OutboxRecord.class;
    }

    private static Object metadataArgument(Class<?> parameter, RecordMetadata metadata) {
        return parameter == RecordMetadata.class ? metadata : metadata.record();
    }

    private static OutboxFallbackHandler fallback(Class<?> type, Class<?> beanType, String where, String name,
            Supplier<?> target) {
        List<Method> candidates = new ArrayList<>();
        for (Method method : type.getMethods()) {
            if (method.getName().equals(name) && !method.isBridge()) {
                candidates.add(method);
            }
        }
        if (candidates.size() != 1) {
            throw new IllegalStateException(where + ": fallback '" + name + "' must name exactly one public method of "
                    + type.getName() + " but " + candidates.size() + " have that name");
        }
        Method method = candidates.get(0);
        String fallbackWhere = "fallback method " + type.getName() + "." + name;
        Method invocable = invocable(method, beanType, fallbackWhere);
        Class<?>[] parameters = method.getParameterTypes();
        for (Class<?> parameter : parameters) {
            if (!isMetadata(parameter) && parameter != Throwable.class) {
                throw new IllegalStateException(where + ": fallback " + name + " may take OutboxRecord, "
                        + "RecordMetadata and Throwable only, not " + parameter.getName());
            }
        }
        return (record, failure) -> {
            Object[] arguments = new Object[parameters.length];
            for (int i = 0; i < arguments.length; i++) {
                arguments[i] = parameters[i] == Throwable.class ? failure
                        : metadataArgument(parameters[i], RecordMetadata.of(record));
            }
            call(invocable, fallbackWhere, target.get(), arguments);
        };
    }

    /**
     * Calls the method and passes on what it threw; a refusal of the call itself is a
     * {@link HandlerInvocationException}, which the engine does not count as the handler's failure.
     */
    private static void call(Method method, String where, @Nullable Object target, @Nullable Object[] arguments)
            throws Exception {
        try {
            method.invoke(target, arguments);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        } catch (IllegalAccessException | IllegalArgumentException | NullPointerException e) {
            throw new HandlerInvocationException(where, e);
        }
    }
}
