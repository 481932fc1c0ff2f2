package io.github.loombulkhead.annotation;

import java.lang.reflect.Method;

import org.springframework.aop.support.StaticMethodMatcherPointcut;

/** Matches methods that carry or inherit {@code @Bulkhead}, directly or from their type. */
final class BulkheadAnnotationPointcut extends StaticMethodMatcherPointcut {

    private final BulkheadOperationSource operations;

    BulkheadAnnotationPointcut(BulkheadOperationSource operations) {
        this.operations = operations;
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return this.operations.isAnnotated(method, targetClass);
    }
}
