package dev.outbox.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.RecordStore;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every method of {@link RecordStore}, default methods included, reaches the delegate: a default left to the interface
 * would run over the delegate's other methods instead of its own implementation (as {@code findDueRows} once did, and
 * a test store watching fetches saw none). A method the interface gains later fails here until it is forwarded.
 */
class ForwardingRecordStoreTest {

    static Stream<Method> recordStoreMethods() {
        return Arrays.stream(RecordStore.class.getMethods()).filter(method -> !Modifier.isStatic(method.getModifiers()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("recordStoreMethods")
    void everyMethodIsPassedToTheDelegate(Method method) throws Exception {
        List<Method> reached = new ArrayList<>();
        RecordStore delegate = (RecordStore) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {RecordStore.class}, (proxy, called, args) -> {
                    reached.add(called);
                    return emptyValueOf(called.getReturnType());
                });

        Object[] arguments = Arrays.stream(method.getParameterTypes()).map(ForwardingRecordStoreTest::emptyValueOf)
                .toArray();
        method.invoke(new ForwardingRecordStore(delegate), arguments);

        assertThat(reached).as("calls that reached the delegate").containsExactly(method);
    }

    private static @Nullable Object emptyValueOf(Class<?> type) {
        if (type == boolean.class) {
            return false;
        }
        if (type == int.class) {
            return 0;
        }
        if (type == List.class) {
            return List.of();
        }
        if (type == FetchedRows.class) {
            return FetchedRows.of(List.of());
        }
        return null;
    }
}
