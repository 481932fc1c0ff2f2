package io.github.loombulkhead.autoconfigure;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

/**
 * For a native image: the exception classes named in {@code adaptive.drop-exceptions} (under
 * {@code loom.bulkhead.defaults}, an instance or the per-host template) when the application is built, which the
 * starter loads by name at startup. A class named only in the configuration the native image runs with has no hint
 * and is not found there; startup then fails naming the property. Registered in {@code META-INF/spring/aot.factories}.
 */
class DropExceptionTypesAotProcessor implements BeanFactoryInitializationAotProcessor {

    private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("loom.bulkhead");

    @Override
    public BeanFactoryInitializationAotContribution processAheadOfTime(ConfigurableListableBeanFactory beanFactory) {
        if (beanFactory.getBeanNamesForType(BulkheadConfigMapper.class, true, false).length == 0
                || !beanFactory.containsBean(ConfigurableApplicationContext.ENVIRONMENT_BEAN_NAME)) {
            return null;
        }
        Set<String> names = dropExceptions(
                beanFactory.getBean(ConfigurableApplicationContext.ENVIRONMENT_BEAN_NAME, Environment.class));
        if (names.isEmpty()) {
            return null;
        }
        ClassLoader classLoader = beanFactory.getBeanClassLoader();
        return (generationContext, code) -> names.forEach((name) -> generationContext.getRuntimeHints()
            .reflection()
            .registerTypeIfPresent(classLoader, name, (type) -> {
            }));
    }

    /** Every class name that an {@code adaptive.drop-exceptions} list under {@code loom.bulkhead} holds. */
    static Set<String> dropExceptions(Environment environment) {
        Set<ConfigurationPropertyName> lists = new LinkedHashSet<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.filter(PREFIX::isAncestorOf).forEach((name) -> {
                    ConfigurationPropertyName list = name.isLastElementIndexed() ? name.getParent() : name;
                    if (isDropExceptions(list)) {
                        lists.add(list);
                    }
                });
            }
        }
        Binder binder = Binder.get(environment);
        Set<String> names = new TreeSet<>();
        for (ConfigurationPropertyName list : lists) {
            try {
                for (String name : binder.bind(list, Bindable.listOf(String.class)).orElse(List.of())) {
                    // A placeholder that the build cannot resolve names a class only at runtime.
                    if (name != null && !name.isBlank() && !name.contains("${")) {
                        names.add(name.trim());
                    }
                }
            }
            catch (BindException ex) {
                // Startup reports a value that cannot be bound, naming the property.
            }
        }
        return names;
    }

    private static boolean isDropExceptions(ConfigurationPropertyName name) {
        int elements = name.getNumberOfElements();
        return elements >= 2 && name.getElement(elements - 1, Form.UNIFORM).equals("dropexceptions")
                && name.getElement(elements - 2, Form.UNIFORM).equals("adaptive");
    }
}
