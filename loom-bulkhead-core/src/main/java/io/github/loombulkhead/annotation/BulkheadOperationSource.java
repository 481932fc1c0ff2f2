package io.github.loombulkhead.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.github.loombulkhead.BulkheadRegistry;

import org.springframework.aop.SpringProxy;
import org.springframework.aop.framework.Advised;
import org.springframework.core.DecoratingProxy;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ReflectionUtils;

import static io.github.loombulkhead.annotation.AnnotatedMethods.describe;
import static io.github.loombulkhead.annotation.AnnotatedMethods.invalid;

/**
 * Binds the {@link Bulkhead @Bulkhead} that applies to a method to the registry's bulkhead, once per method and
 * target class, after checking its name ({@link BulkheadNameResolver}), return type ({@link ReturnTypeCheck}) and
 * visibility. Used by the post-processor (eager validation) and by the interceptor (cached lookup).
 */
final class BulkheadOperationSource {

    private static final BulkheadOperation NONE = new BulkheadOperation("", null, false, false);

    private final BulkheadRegistry registry;

    private final Map<MethodClassKey, BulkheadOperation> cache = new ConcurrentHashMap<>();

    private final Map<Class<?>, Boolean> validated = new ConcurrentHashMap<>();

    BulkheadOperationSource(BulkheadRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry must not be null");
    }

    BulkheadRegistry getRegistry() {
        return this.registry;
    }

    /**
     * The checked operation for {@code method} called on {@code targetClass}, or {@code null} if it is
     * not annotated.
     * @throws IllegalStateException naming the method and what is wrong with its annotation
     */
    BulkheadOperation getOperation(Method method, Class<?> targetClass) {
        BulkheadOperation operation = this.cache.get(new MethodClassKey(method, targetClass));
        if (operation == null) {
            operation = resolve(method, targetClass);
            this.cache.put(new MethodClassKey(method, targetClass), operation);
        }
        return (operation != NONE) ? operation : null;
    }

    /**
     * Resolves every annotated method of {@code targetClass} so that a bad annotation fails the
     * application at startup rather than at the first call, and creates the bulkheads it names.
     * @throws IllegalStateException naming the first bad method and what to change
     */
    void validate(Class<?> targetClass) {
        if (this.validated.containsKey(targetClass)) {
            return;
        }
        ReflectionUtils.doWithMethods(targetClass, (method) -> {
            if (MergedAnnotations.from(method, SearchStrategy.DIRECT).isPresent(Bulkhead.class)
                    && (Modifier.isStatic(method.getModifiers()) || Modifier.isPrivate(method.getModifiers()))) {
                throw invalid(method, targetClass, "a proxy cannot intercept a "
                        + (Modifier.isStatic(method.getModifiers()) ? "static" : "private")
                        + " method; make it a public instance method or remove the annotation");
            }
        }, ReflectionUtils.USER_DECLARED_METHODS);
        for (Method method : BulkheadNameResolver.annotatedMethods(targetClass)) {
            getOperation(method, targetClass);
        }
        if (Proxy.isProxyClass(targetClass)) {
            // A JDK proxy is called with its interfaces' methods, whose return types the proxy class's own methods
            // erase when a generic interface binds them (Finder<Future<T>>): checked as the calls will see them.
            for (Class<?> proxied : targetClass.getInterfaces()) {
                if (proxied == SpringProxy.class || proxied == Advised.class || proxied == DecoratingProxy.class) {
                    // Answered by the proxy itself, never advised.
                    continue;
                }
                for (Method method : proxied.getMethods()) {
                    if (!Modifier.isStatic(method.getModifiers())
                            && BulkheadNameResolver.isAnnotated(method, targetClass)) {
                        getOperation(method, targetClass);
                    }
                }
            }
        }
        this.validated.put(targetClass, Boolean.TRUE);
    }

    /**
     * Checks that a class-based proxy of {@code targetClass} can intercept every method a {@code @Bulkhead} was
     * written for: CGLIB cannot override a final method, so its calls would run unbounded. (A JDK proxy intercepts a
     * final method through the interface that declares it.) Written for: annotated itself, or declared by a type that
     * carries the annotation; a final method inherited from a type without it (a framework's base class, say) is left
     * unbounded, as Spring leaves such methods to the target.
     * @throws IllegalStateException naming the first final method and what to change
     */
    void validateClassProxy(Class<?> targetClass) {
        for (Method method : BulkheadNameResolver.annotatedMethods(targetClass)) {
            if (Modifier.isFinal(method.getModifiers())
                    && (MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).isPresent(Bulkhead.class)
                            || MergedAnnotations.from(method.getDeclaringClass(), SearchStrategy.TYPE_HIERARCHY)
                                .isPresent(Bulkhead.class))) {
                throw invalid(method, targetClass, "a class-based (CGLIB) proxy cannot intercept a final method, so "
                        + "its calls would not be bounded; remove final or the annotation");
            }
        }
    }

    private BulkheadOperation resolve(Method method, Class<?> targetClass) {
        String name = BulkheadNameResolver.resolve(method, targetClass);
        if (name == null) {
            return NONE;
        }
        boolean async = ReturnTypeCheck.isAsync(method, targetClass);
        boolean bodyStream = !async && ReturnTypeCheck.returnsBodyStream(method, targetClass);
        try {
            return new BulkheadOperation(name, this.registry.bulkhead(name), async, bodyStream);
        }
        catch (RuntimeException ex) {
            throw new IllegalStateException(describe(method, targetClass) + ": bulkhead '" + name
                    + "' could not be created: " + ex.getMessage(), ex);
        }
    }

    /**
     * A resolved annotation: the shared bulkhead, whether the method returns a stage, and whether it returns an
     * HTTP response body stream that holds the permit until closed.
     */
    record BulkheadOperation(String name, io.github.loombulkhead.Bulkhead bulkhead, boolean async,
            boolean bodyStream) {
    }
}
