package io.github.loombulkhead.annotation;

import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.annotation.AnnotationConfigurationException;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ReflectionUtils;

import static io.github.loombulkhead.annotation.AnnotatedMethods.invalid;

/**
 * Which bulkhead {@link Bulkhead @Bulkhead} names for a method called on a target class, by the rules stated on
 * {@link Bulkhead}: the one lookup that the advice and the Spring Boot starter share.
 */
public final class BulkheadNameResolver {

    private BulkheadNameResolver() {
    }

    /** Whether {@code method}, called on {@code targetClass}, carries or inherits {@code @Bulkhead}; never throws. */
    public static boolean isAnnotated(Method method, Class<?> targetClass) {
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
     * The bulkhead name of {@code method} called on {@code targetClass}, or {@code null} if no {@code @Bulkhead}
     * applies to it.
     * @throws IllegalStateException naming the method and what is wrong with its annotation (a blank name, names
     * that contradict each other)
     */
    public static String resolve(Method method, Class<?> targetClass) {
        if (!isAnnotated(method, targetClass)) {
            return null;
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
        return name;
    }

    /**
     * The methods of {@code targetClass} that a proxy of it intercepts (the public ones, interface methods of JDK
     * proxies included, and the package-private and protected ones of a class-based proxy) and that
     * {@code @Bulkhead} applies to.
     */
    public static List<Method> annotatedMethods(Class<?> targetClass) {
        if (!AnnotationUtils.isCandidateClass(targetClass, Bulkhead.class)) {
            return List.of();
        }
        List<Method> candidates = new ArrayList<>(Arrays.asList(targetClass.getMethods()));
        ReflectionUtils.doWithMethods(targetClass, candidates::add,
                (method) -> !Modifier.isPublic(method.getModifiers()) && !Modifier.isPrivate(method.getModifiers())
                        && !Modifier.isStatic(method.getModifiers()) && method.getDeclaringClass() != Object.class);
        return candidates.stream()
            .filter((method) -> !method.isBridge() && !method.isSynthetic() && isAnnotated(method, targetClass))
            .toList();
    }

    /**
     * The name from the nearest declaration: a class (or its method) wins over an interface; on one
     * element, or across unrelated interfaces, different names are a conflict.
     */
    private static String nearestName(MergedAnnotations annotations, Method method, Class<?> targetClass) {
        List<MergedAnnotation<Bulkhead>> found;
        try {
            found = annotations.stream(Bulkhead.class).toList();
        }
        catch (AnnotationConfigurationException ex) {
            throw aliasesDiffer(method, targetClass, ex);
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
                throw aliasesDiffer(method, targetClass, ex);
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
            // Type annotations of interfaces that a class implements side by side: those that declare the method
            // name its bulkhead, if they agree (OrderApi's for order(), PaymentApi's for pay()).
            List<String> declaring = nearest.stream()
                .filter((source) -> ReflectionUtils.findMethod(declaringType(source), method.getName(),
                        method.getParameterTypes()) != null)
                .map((source) -> namesBySource.get(source).get(0))
                .distinct()
                .toList();
            if (declaring.size() == 1) {
                return declaring.get(0);
            }
        }
        if (names.size() > 1) {
            throw invalid(method, targetClass, "unrelated interfaces declare @Bulkhead with different names "
                    + nearest.stream().map((source) -> source + " -> '" + namesBySource.get(source).get(0) + "'")
                        .collect(Collectors.joining(", "))
                    + "; annotate the implementing class or method to choose one");
        }
        return names.get(0);
    }

    private static IllegalStateException aliasesDiffer(Method method, Class<?> targetClass,
            AnnotationConfigurationException ex) {
        return invalid(method, targetClass, "value and name are aliases and must not differ; set only one of them ("
                + ex.getMessage() + ")");
    }

    private static boolean typeAnnotated(Class<?> type) {
        return MergedAnnotations.from(type, SearchStrategy.TYPE_HIERARCHY).isPresent(Bulkhead.class);
    }

    /** A type annotation covers the public instance methods, except equals, hashCode and toString. */
    private static boolean typeLevelApplies(Method method) {
        int modifiers = method.getModifiers();
        return Modifier.isPublic(modifiers) && !Modifier.isStatic(modifiers) && !ReflectionUtils.isObjectMethod(method);
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
}
