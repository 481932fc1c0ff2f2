package io.github.loombulkhead.autoconfigure;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;

import io.github.loombulkhead.annotation.BulkheadNameResolver;

/**
 * The bulkhead names that {@code @Bulkhead} annotations on types and their methods refer to, as the advice
 * resolves them ({@link BulkheadNameResolver}): to size the pool of HTTP interfaces, and to tell configured
 * bulkheads that nothing uses.
 */
public final class AnnotatedBulkheads {

    private AnnotatedBulkheads() {
    }

    /**
     * Every bulkhead name that calls through {@code types} use. A method whose annotation the resolver refuses
     * names nothing here: creating its bean fails with the resolver's message.
     */
    public static Set<String> of(Collection<Class<?>> types) {
        Set<String> names = new LinkedHashSet<>();
        for (Class<?> type : types) {
            for (Method method : BulkheadNameResolver.annotatedMethods(type)) {
                try {
                    names.add(BulkheadNameResolver.resolve(method, type));
                }
                catch (IllegalStateException ex) {
                    // reported when the bean is created, with the method and what to change
                }
            }
        }
        return names;
    }

    /**
     * Whether every call through {@code types} holds a permit: each abstract method (an HTTP exchange) carries
     * {@code @Bulkhead}, on itself or on its type.
     */
    public static boolean coverEveryMethod(Collection<Class<?>> types) {
        for (Class<?> type : types) {
            for (Method method : type.getMethods()) {
                if (Modifier.isAbstract(method.getModifiers()) && !BulkheadNameResolver.isAnnotated(method, type)) {
                    return false;
                }
            }
        }
        return true;
    }
}
