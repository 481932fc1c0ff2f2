package io.github.loombulkhead.annotation;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * For a native image: the class that {@code @Bulkhead} support looks up by name to tell whether HTTP interface
 * methods can return a response body stream (which holds the permit until closed). Without it, the lookup would find
 * nothing in a native image and such a method would release its permit when it returns. Registered in
 * {@code META-INF/spring/aot.factories}.
 */
class BulkheadAnnotationRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        hints.reflection().registerTypeIfPresent(classLoader, ReturnTypeCheck.HTTP_EXCHANGE, (type) -> {
        });
    }
}
