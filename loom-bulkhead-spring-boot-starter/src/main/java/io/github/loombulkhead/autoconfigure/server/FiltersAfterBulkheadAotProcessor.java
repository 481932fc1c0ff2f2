package io.github.loombulkhead.autoconfigure.server;

import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * For a native image: {@code shouldNotFilterAsyncDispatch}, which {@link FiltersAfterBulkheadReporter} calls
 * reflectively on the application's {@code OncePerRequestFilter} beans to tell whether they see a request that waited,
 * registered for each of their classes that declares it. Without it the check cannot call the method in a native
 * image. Registered in {@code META-INF/spring/aot.factories}; does nothing without the server bulkhead.
 */
class FiltersAfterBulkheadAotProcessor implements BeanFactoryInitializationAotProcessor {

    private static final String ONCE_PER_REQUEST_FILTER = "org.springframework.web.filter.OncePerRequestFilter";

    /** The {@link FiltersAfterBulkheadReporter} bean of {@link LoomBulkheadServerAutoConfiguration}. */
    private static final String REPORTER = "serverBulkheadFiltersAfterReporter";

    @Override
    public BeanFactoryInitializationAotContribution processAheadOfTime(ConfigurableListableBeanFactory beanFactory) {
        // By name: without the server bulkhead, the servlet API this package needs may be missing.
        if (!beanFactory.containsBeanDefinition(REPORTER)
                || !ClassUtils.isPresent(ONCE_PER_REQUEST_FILTER, beanFactory.getBeanClassLoader())) {
            return null;
        }
        Set<Method> methods = Filters.methods(beanFactory);
        if (methods.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> methods.forEach((method) -> generationContext.getRuntimeHints()
            .reflection()
            .registerMethod(method, ExecutableMode.INVOKE));
    }

    /** Loaded only when Spring Web is on the class path. */
    private static final class Filters {

        /** Each declaration of the method in the classes of the filter beans, up to OncePerRequestFilter's own. */
        static Set<Method> methods(ConfigurableListableBeanFactory beanFactory) {
            Set<Method> methods = new LinkedHashSet<>();
            for (String name : beanFactory.getBeanNamesForType(
                    org.springframework.web.filter.OncePerRequestFilter.class, true, false)) {
                Class<?> type = beanFactory.getType(name, false);
                for (Class<?> c = (type != null) ? ClassUtils.getUserClass(type) : null; c != null
                        && c != Object.class; c = c.getSuperclass()) {
                    Method declared = ReflectionUtils.findMethod(c, FiltersAfterBulkheadReporter.SKIPS_ASYNC_DISPATCH);
                    if (declared != null && declared.getDeclaringClass() == c) {
                        methods.add(declared);
                    }
                }
            }
            return methods;
        }
    }
}
