package io.github.loombulkhead.annotation;

import java.lang.reflect.Method;

import org.springframework.aop.support.StaticMethodMatcherPointcut;

/** Matches methods that carry or inherit {@code @Bulkhead}, directly or from their type. */
final class BulkheadAnnotationPointcut extends StaticMethodMatcherPointcut {

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        if (targetClass == method.getDeclaringClass() && targetClass.isInterface()) {
            // A proxy without a target (an HTTP interface client) is matched with the interface that declares the
            // method, which may be a base interface the annotated client extends: only the proxy's class tells, and
            // the interceptor resolves the call against it (and proceeds when no @Bulkhead applies). The proxy got
            // this advisor only because a method of its class is annotated.
            return true;
        }
        return BulkheadNameResolver.isAnnotated(method, targetClass);
    }
}
