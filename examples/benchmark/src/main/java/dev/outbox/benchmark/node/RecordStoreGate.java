package dev.outbox.benchmark.node;

import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.RecordStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Puts the {@link StartGate} in front of the starter's {@link RecordStore}: while the gate is closed its fetches
 * ({@code findDue}, the deferral look and the look for unknown statuses) return nothing without asking the database.
 * Every other call, and every call once the gate is open, goes to the library's own store unchanged; the gate counts
 * the fetches in flight, so that it can tell when a hold has taken effect. A dynamic proxy, so that methods the store
 * gains later are forwarded as well.
 */
final class RecordStoreGate implements BeanPostProcessor {

    private final ObjectProvider<StartGate> gate;

    RecordStoreGate(ObjectProvider<StartGate> gate) {
        this.gate = gate;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof RecordStore store) || Proxy.isProxyClass(bean.getClass())) {
            return bean;
        }
        return Proxy.newProxyInstance(RecordStoreGate.class.getClassLoader(), new Class<?>[] {RecordStore.class},
                (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "equals":
                            return args != null && proxy == args[0];
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "toString":
                            return "gated " + store;
                        case "findDue", "findDeferralsDue", "findUnknownStatusRows":
                            StartGate startGate = gate.getObject();
                            if (!startGate.enter()) {
                                return FetchedRows.of(List.of());
                            }
                            try {
                                return forward(store, method, args);
                            } finally {
                                startGate.leave();
                            }
                        default:
                            return forward(store, method, args);
                    }
                });
    }

    private static @Nullable Object forward(RecordStore store, Method method, @Nullable Object @Nullable [] args)
            throws Throwable {
        try {
            return method.invoke(store, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
