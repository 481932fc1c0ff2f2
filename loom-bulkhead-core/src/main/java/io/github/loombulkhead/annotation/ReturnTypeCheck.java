package io.github.loombulkhead.annotation;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

import static io.github.loombulkhead.annotation.AnnotatedMethods.invalid;

/**
 * How a {@code @Bulkhead} method returns, which decides how long it holds its permit: until it returns, until its
 * stage completes, or until its HTTP response body is closed; refuses types whose completion cannot be observed.
 */
final class ReturnTypeCheck {

    /** Looked up by name (a native image registers it, see {@link BulkheadAnnotationRuntimeHints}). */
    static final String HTTP_EXCHANGE = "org.springframework.web.service.annotation.HttpExchange";

    private static final boolean springWebPresent = ClassUtils.isPresent(HTTP_EXCHANGE,
            ReturnTypeCheck.class.getClassLoader());

    /**
     * Reactive types recognized even when no library that Spring's {@link ReactiveAdapterRegistry} adapts is
     * present; the registry knows the others (Reactor, RxJava, Mutiny, Kotlin coroutines).
     */
    private static final List<String> REACTIVE_TYPES = List.of("org.reactivestreams.Publisher",
            "java.util.concurrent.Flow$Publisher", "kotlinx.coroutines.flow.Flow");

    /** A running coroutine ({@code Deferred} is one), known to the registry only with kotlinx-coroutines-reactor. */
    private static final String KOTLIN_JOB = "kotlinx.coroutines.Job";

    private ReturnTypeCheck() {
    }

    /**
     * Whether the method is asynchronous (returns {@link CompletableFuture} or {@link CompletionStage}).
     * @throws IllegalStateException naming the method, for a return type whose completion cannot be observed
     */
    static boolean isAsync(Method method, Class<?> targetClass) {
        // As the target class resolves it: through a JDK proxy, a generic interface's method returns Object.
        Class<?> type = ResolvableType.forMethodReturnType(method, targetClass).toClass();
        if (type == CompletableFuture.class || type == CompletionStage.class) {
            return true;
        }
        if (CompletionStage.class.isAssignableFrom(type)) {
            throw invalid(method, targetClass, "return type " + type.getName() + " is not supported because the "
                    + "bulkhead returns its own CompletableFuture; declare CompletableFuture or CompletionStage");
        }
        if (Future.class.isAssignableFrom(type)) {
            throw invalid(method, targetClass, "return type " + type.getName() + " is not supported: a Future "
                    + "that is not a CompletionStage cannot report completion without blocking a thread, so the "
                    + "permit could not be held until the call ends; return CompletableFuture or "
                    + "CompletionStage, or make the method synchronous");
        }
        if (ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null
                || REACTIVE_TYPES.stream().anyMatch((reactive) -> isAssignableTo(type, reactive))) {
            throw invalid(method, targetClass, "reactive return type " + type.getName() + " is not "
                    + "supported: the permit would be released before the publisher emits; call the "
                    + "service from blocking code on virtual threads, or return CompletableFuture");
        }
        if (isAssignableTo(type, KOTLIN_JOB)) {
            throw invalid(method, targetClass, "Kotlin coroutine return type " + type.getName() + " is not "
                    + "supported: the permit would be released while the coroutine still runs; use a blocking "
                    + "function on a virtual thread or return CompletableFuture");
        }
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length > 0
                && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation")) {
            throw invalid(method, targetClass, "Kotlin suspend functions are not supported; use a blocking "
                    + "function on a virtual thread or return CompletableFuture");
        }
        return false;
    }

    /** Whether the synchronous method returns an HTTP response body stream that holds the permit until closed. */
    static boolean returnsBodyStream(Method method, Class<?> targetClass) {
        return springWebPresent && BodyStreamCall.returnsBodyStream(method, targetClass);
    }

    private static boolean isAssignableTo(Class<?> type, String typeName) {
        if (type == null) {
            return false;
        }
        if (type.getName().equals(typeName)) {
            return true;
        }
        for (Class<?> implemented : type.getInterfaces()) {
            if (isAssignableTo(implemented, typeName)) {
                return true;
            }
        }
        return isAssignableTo(type.getSuperclass(), typeName);
    }
}
