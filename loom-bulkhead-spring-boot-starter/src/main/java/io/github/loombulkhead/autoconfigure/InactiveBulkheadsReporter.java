package io.github.loombulkhead.autoconfigure;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.thread.Threading;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Logs one WARN at startup when beans carry {@code @Bulkhead} but loom-bulkhead is inactive, so the
 * application does not believe its calls are bounded when they are not. Silent when the application applies
 * the annotation itself with its own {@code BulkheadAnnotationBeanPostProcessor}.
 */
class InactiveBulkheadsReporter implements SmartInitializingSingleton {

    static final String BULKHEAD_ANNOTATION = "io.github.loombulkhead.annotation.Bulkhead";

    private static final String POST_PROCESSOR = "io.github.loombulkhead.annotation.BulkheadAnnotationBeanPostProcessor";

    private static final Log logger = LogFactory.getLog(InactiveBulkheadsReporter.class);

    private static final int MAX_LISTED = 10;

    private final ConfigurableListableBeanFactory beanFactory;

    private final Environment environment;

    InactiveBulkheadsReporter(ConfigurableListableBeanFactory beanFactory, Environment environment) {
        this.beanFactory = beanFactory;
        this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (appliesAnnotationsItself()) {
            return;
        }
        List<String> annotated = findAnnotatedBeans();
        if (annotated.isEmpty()) {
            return;
        }
        logger.warn(message(annotated));
    }

    /** The WARN text for beans that use {@code @Bulkhead}. */
    String message(List<String> annotated) {
        String beans = String.join(", ", annotated.subList(0, Math.min(MAX_LISTED, annotated.size())))
                + ((annotated.size() > MAX_LISTED) ? " and " + (annotated.size() - MAX_LISTED) + " more" : "");
        return "@Bulkhead is used by " + annotated.size() + " bean(s) [" + beans + "] but loom-bulkhead is INACTIVE, "
                + "so these calls are NOT bounded: " + reason(this.environment);
    }

    /** Why loom-bulkhead is inactive, and what to change. */
    static String reason(Environment environment) {
        if (!environment.getProperty("loom.bulkhead.enabled", Boolean.class, true)) {
            return "loom.bulkhead.enabled is false. Remove that setting to bound them.";
        }
        if (!Threading.VIRTUAL.isActive(environment)) {
            return "virtual threads are off. Set spring.threads.virtual.enabled=true (Java 21+) to bound them.";
        }
        return "its auto-configuration was excluded or replaced.";
    }

    private boolean appliesAnnotationsItself() {
        ClassLoader classLoader = this.beanFactory.getBeanClassLoader();
        return ClassUtils.isPresent(POST_PROCESSOR, classLoader) && this.beanFactory
            .getBeanNamesForType(ClassUtils.resolveClassName(POST_PROCESSOR, classLoader), true, false).length > 0;
    }

    List<String> findAnnotatedBeans() {
        List<String> annotated = new ArrayList<>();
        for (String name : this.beanFactory.getBeanDefinitionNames()) {
            Class<?> type = this.beanFactory.getType(name, false);
            if (type != null && usesBulkhead(ClassUtils.getUserClass(type))) {
                annotated.add(name);
            }
        }
        return annotated;
    }

    private static boolean usesBulkhead(Class<?> type) {
        if (MergedAnnotations.from(type, SearchStrategy.TYPE_HIERARCHY).isPresent(BULKHEAD_ANNOTATION)) {
            return true;
        }
        boolean[] found = new boolean[1];
        ReflectionUtils.doWithMethods(type, (Method method) -> found[0] = true,
                (Method method) -> !found[0] && MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY)
                    .isPresent(BULKHEAD_ANNOTATION));
        return found[0];
    }
}
