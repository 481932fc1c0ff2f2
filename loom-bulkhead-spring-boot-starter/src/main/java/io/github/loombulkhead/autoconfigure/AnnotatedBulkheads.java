package io.github.loombulkhead.autoconfigure;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;

import io.github.loombulkhead.annotation.Bulkhead;

import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ReflectionUtils;

/**
 * The bulkhead names that {@code @Bulkhead} annotations on types and their methods refer to: to size the pool
 * of HTTP interfaces, and to tell configured bulkheads that nothing uses.
 */
public final class AnnotatedBulkheads {

    private AnnotatedBulkheads() {
    }

    /** Every bulkhead name that {@code @Bulkhead} on {@code types} or their methods gives. */
    public static Set<String> of(Collection<Class<?>> types) {
        Set<String> names = new LinkedHashSet<>();
        for (Class<?> type : types) {
            add(names, MergedAnnotations.from(type, SearchStrategy.TYPE_HIERARCHY).get(Bulkhead.class));
            ReflectionUtils.doWithMethods(type, (Method method) -> add(names,
                    MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).get(Bulkhead.class)));
        }
        return names;
    }

    /**
     * Whether every call through {@code types} holds a permit: each abstract method (an HTTP exchange) carries
     * {@code @Bulkhead}, on itself or on its type.
     */
    public static boolean coverEveryMethod(Collection<Class<?>> types) {
        for (Class<?> type : types) {
            if (MergedAnnotations.from(type, SearchStrategy.TYPE_HIERARCHY).isPresent(Bulkhead.class)) {
                continue;
            }
            boolean[] covered = { true };
            ReflectionUtils.doWithMethods(type, (Method method) -> {
                if (Modifier.isAbstract(method.getModifiers())
                        && !MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).isPresent(Bulkhead.class)) {
                    covered[0] = false;
                }
            });
            if (!covered[0]) {
                return false;
            }
        }
        return true;
    }

    private static void add(Set<String> names, MergedAnnotation<Bulkhead> annotation) {
        if (annotation.isPresent()) {
            String name = annotation.getString("name");
            if (!name.isBlank()) {
                names.add(name);
            }
        }
    }
}
