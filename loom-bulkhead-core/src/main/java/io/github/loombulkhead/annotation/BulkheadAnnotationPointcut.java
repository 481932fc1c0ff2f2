package io.github.loombulkhead.annotation;

import java.lang.reflect.Method;

import org.springframework.aop.support.StaticMethodMatcherPointcut;

/** Matches methods that carry or inherit {@code @Bulkhead}, directly or from their type. */
final class BulkheadAnnotationPointcut extends StaticMethodMatcherPointcut {

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return BulkheadNameResolver.isAnnotated(method, targetClass);
    }
}
