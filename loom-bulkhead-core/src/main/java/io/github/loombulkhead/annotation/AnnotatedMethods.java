package io.github.loombulkhead.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.stream.Collectors;

import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/** How errors about a {@code @Bulkhead} method name it: the type the user wrote, the method and its parameters. */
final class AnnotatedMethods {

    private AnnotatedMethods() {
    }

    /** {@code @Bulkhead on com.example.Client.call(String)}; for a JDK proxy, the interface that declares it. */
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

    /** The error for an annotation that cannot work: names the method and says what is wrong and what to do. */
    static IllegalStateException invalid(Method method, Class<?> targetClass, String problem) {
        return new IllegalStateException("Invalid " + describe(method, targetClass) + ": " + problem);
    }
}
