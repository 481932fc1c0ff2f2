package io.github.loombulkhead.annotation;

import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import io.github.loombulkhead.BulkheadRegistry;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.annotation.AnnotationConfigurationException;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the {@link Bulkhead @Bulkhead} that applies to a method, checks it (name, return type,
 * conflicts) and binds it to the registry's bulkhead, once per method and target class.
 * Used by the pointcut (presence only, never throws), by the post-processor (eager validation)
 * and by the interceptor (cached lookup).
 */
final class BulkheadOperationSource {

    private static final BulkheadOperation NONE = new BulkheadOperation("", null, false, false);

    private static final boolean springWebPresent = ClassUtils.isPresent(
            "org.springframework.web.service.annotation.HttpExchange", BulkheadOperationSource.class.getClassLoader());

    /**
     * Reactive types recognized even when no library that Spring's {@link ReactiveAdapterRegistry} adapts is
     * present; the registry knows the others (Reactor, RxJava, Mutiny, Kotlin coroutines).
     */
    private static final List<String> REACTIVE_TYPES = List.of("org.reactivestreams.Publisher",
            "java.util.concurrent.Flow$Publisher", "kotlinx.coroutines.flow.Flow");

    private final BulkheadRegistry registry;

    private final Map<MethodClassKey, BulkheadOperation> cache = new ConcurrentHashMap<>();

    private final Map<Class<?>, Boolean> validated = new ConcurrentHashMap<>();

    BulkheadOperationSource(BulkheadRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry must not be null");
    }

    BulkheadRegistry getRegistry() {
        return this.registry;
    }

    /** Whether {@code method}, called on {@code targetClass}, carries or inherits {@code @Bulkhead}. */
    boolean isAnnotated(Method method, Class<?> targetClass) {
        if (method.getDeclaringClass() == Object.class) {
            return false;
        }
        Method specific = specificMethod(method, targetClass);
        if (MergedAnnotations.from(specific, SearchStrategy.TYPE_HIERARCHY).isPresent(Bulkhead.class)
                || MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).isPresent(Bulkhead.class)) {
            return true;
        }
        return typeLevelApplies(specific) && (typeAnnotated(targetClass) || typeAnnotated(method.getDeclaringClass()));
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
            if (directlyAnnotated(method) && (Modifier.isStatic(method.getModifiers())
                    || Modifier.isPrivate(method.getModifiers()))) {
                throw invalid(method, targetClass, "a proxy cannot intercept a "
                        + (Modifier.isStatic(method.getModifiers()) ? "static" : "private")
                        + " method; make it a public instance method or remove the annotation");
            }
        }, ReflectionUtils.USER_DECLARED_METHODS);
        // Public methods (interface methods of JDK proxies included) and the package-private and protected
        // methods a class-based proxy intercepts as well.
        List<Method> candidates = new ArrayList<>(Arrays.asList(targetClass.getMethods()));
        ReflectionUtils.doWithMethods(targetClass, candidates::add,
                (method) -> !Modifier.isPublic(method.getModifiers()) && !Modifier.isPrivate(method.getModifiers())
                        && !Modifier.isStatic(method.getModifiers()) && method.getDeclaringClass() != Object.class);
        for (Method method : candidates) {
            if (!method.isBridge() && !method.isSynthetic() && isAnnotated(method, targetClass)) {
                getOperation(method, targetClass);
            }
        }
        this.validated.put(targetClass, Boolean.TRUE);
    }

    private BulkheadOperation resolve(Method method, Class<?> targetClass) {
        if (!isAnnotated(method, targetClass)) {
            return NONE;
        }
        Method specific = specificMethod(method, targetClass);
        String name = nearestName(MergedAnnotations.from(specific, SearchStrategy.TYPE_HIERARCHY), specific,
                targetClass);
        if (name == null && specific != method) {
            name = nearestName(MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY), method, targetClass);
        }
        if (name == null) {
            name = nearestName(MergedAnnotations.from(targetClass, SearchStrategy.TYPE_HIERARCHY), method,
                    targetClass);
        }
        if (name == null) {
            name = nearestName(MergedAnnotations.from(method.getDeclaringClass(), SearchStrategy.TYPE_HIERARCHY),
                    method, targetClass);
        }
        if (name == null || name.isBlank()) {
            throw invalid(method, targetClass, "the bulkhead name is blank; name the bulkhead, e.g. @Bulkhead(\""
                    + method.getName() + "\")");
        }
        boolean async = checkReturnType(method, targetClass);
        boolean bodyStream = !async && springWebPresent && BodyStreamCall.returnsBodyStream(method, targetClass);
        try {
            return new BulkheadOperation(name, this.registry.bulkhead(name), async, bodyStream);
        }
        catch (RuntimeException ex) {
            throw new IllegalStateException(describe(method, targetClass) + ": bulkhead '" + name
                    + "' could not be created: " + ex.getMessage(), ex);
        }
    }

    /**
     * The name from the nearest declaration: a class (or its method) wins over an interface; on one
     * element, or across unrelated interfaces, different names are a conflict.
     */
    private String nearestName(MergedAnnotations annotations, Method method, Class<?> targetClass) {
        List<MergedAnnotation<Bulkhead>> found;
        try {
            found = annotations.stream(Bulkhead.class).toList();
        }
        catch (AnnotationConfigurationException ex) {
            throw invalid(method, targetClass, "value and name are aliases and must not differ; set only one "
                    + "of them (" + ex.getMessage() + ")");
        }
        if (found.isEmpty()) {
            return null;
        }
        Map<Object, List<String>> namesBySource = new LinkedHashMap<>();
        for (MergedAnnotation<Bulkhead> annotation : found) {
            String name;
            try {
                name = annotation.getString("value");
            }
            catch (AnnotationConfigurationException ex) {
                throw invalid(method, targetClass, "value and name are aliases and must not differ; set only "
                        + "one of them (" + ex.getMessage() + ")");
            }
            namesBySource.computeIfAbsent(annotation.getSource(), (key) -> new ArrayList<>()).add(name);
        }
        namesBySource.forEach((source, names) -> {
            if (names.stream().distinct().count() > 1) {
                throw invalid(method, targetClass, source + " carries more than one @Bulkhead with different "
                        + "names " + names.stream().distinct().toList() + "; keep exactly one");
            }
        });
        List<Object> sources = new ArrayList<>(namesBySource.keySet());
        for (Object source : sources) {
            if (!declaringType(source).isInterface()) {
                return namesBySource.get(source).get(0);
            }
        }
        // Only interfaces: a sub-interface overrides its super-interfaces; unrelated ones must agree.
        List<Object> nearest = sources.stream()
            .filter((source) -> sources.stream()
                .noneMatch((other) -> other != source && declaringType(source) != declaringType(other)
                        && declaringType(source).isAssignableFrom(declaringType(other))))
            .toList();
        List<String> names = nearest.stream().map((source) -> namesBySource.get(source).get(0)).distinct().toList();
        if (names.size() > 1) {
            throw invalid(method, targetClass, "unrelated interfaces declare @Bulkhead with different names "
                    + nearest.stream().map((source) -> source + " -> '" + namesBySource.get(source).get(0) + "'")
                        .collect(Collectors.joining(", "))
                    + "; annotate the implementing class or method to choose one");
        }
        return names.get(0);
    }

    /** Whether the method is asynchronous; refuses return types whose completion cannot be observed. */
    private static boolean checkReturnType(Method method, Class<?> targetClass) {
        Class<?> type = method.getReturnType();
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
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length > 0
                && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation")) {
            throw invalid(method, targetClass, "Kotlin suspend functions are not supported; use a blocking "
                    + "function on a virtual thread or return CompletableFuture");
        }
        return false;
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

    private static boolean typeAnnotated(Class<?> type) {
        return MergedAnnotations.from(type, SearchStrategy.TYPE_HIERARCHY).isPresent(Bulkhead.class);
    }

    /** A type annotation covers the public instance methods, except equals, hashCode and toString. */
    private static boolean typeLevelApplies(Method method) {
        int modifiers = method.getModifiers();
        return Modifier.isPublic(modifiers) && !Modifier.isStatic(modifiers) && !ReflectionUtils.isObjectMethod(method);
    }

    private static boolean directlyAnnotated(Method method) {
        return MergedAnnotations.from(method, SearchStrategy.DIRECT).isPresent(Bulkhead.class);
    }

    private static Method specificMethod(Method method, Class<?> targetClass) {
        return BridgeMethodResolver.findBridgedMethod(AopUtils.getMostSpecificMethod(method, targetClass));
    }

    private static Class<?> declaringType(Object source) {
        if (source instanceof Class<?> type) {
            return type;
        }
        if (source instanceof Member member) {
            return member.getDeclaringClass();
        }
        return Object.class;
    }

    static String describe(Method method, Class<?> targetClass) {
        String parameters = Arrays.stream(method.getParameterTypes())
            .map(Class::getSimpleName)
            .collect(Collectors.joining(", "));
        Class<?> owner = (targetClass != null) ? targetClass : method.getDeclaringClass();
        if (Proxy.isProxyClass(owner)) {
            owner = ClassUtils.getAllInterfacesForClassAsSet(owner)
                .stream()
                .filter((candidate) -> ReflectionUtils.findMethod(candidate, method.getName(),
                        method.getParameterTypes()) != null)
                .findFirst()
                .orElse(method.getDeclaringClass());
        }
        return "@Bulkhead on " + owner.getName() + "." + method.getName() + "(" + parameters + ")";
    }

    private static IllegalStateException invalid(Method method, Class<?> targetClass, String problem) {
        return new IllegalStateException("Invalid " + describe(method, targetClass) + ": " + problem);
    }

    /**
     * A resolved annotation: the shared bulkhead, whether the method returns a stage, and whether it returns an
     * HTTP response body stream that holds the permit until closed.
     */
    record BulkheadOperation(String name, io.github.loombulkhead.Bulkhead bulkhead, boolean async,
            boolean bodyStream) {
    }
}
