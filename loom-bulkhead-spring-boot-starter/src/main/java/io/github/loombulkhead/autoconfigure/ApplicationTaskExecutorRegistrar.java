package io.github.loombulkhead.autoconfigure;

import java.util.Arrays;
import java.util.concurrent.Executor;

import io.github.loombulkhead.autoconfigure.task.BoundedVirtualTaskExecutor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.core.type.MethodMetadata;

/**
 * Makes the bounded executor the {@code applicationTaskExecutor} exactly when Spring Boot creates one, so it backs
 * off as Spring Boot does: it takes the place of Spring Boot's own definition (also with
 * {@code spring.task.execution.mode=force}, beside the application's {@code Executor} beans) and is dropped, with a
 * WARN saying why, when Spring Boot made none (the application's own {@code Executor} beans). It is defined only
 * after Spring Boot decided, so Spring Boot never mistakes it for an {@code Executor} of the application's.
 * <p>Ahead-of-time processing (native images, {@code spring.aot.enabled}) records the definitions as this registrar
 * left them, so the registrar itself is left out of the generated code: run again on them, it would take the
 * recorded bounded executor for one of the application's and remove the factory it is made by.
 */
class ApplicationTaskExecutorRegistrar implements BeanDefinitionRegistryPostProcessor, BeanRegistrationAotProcessor {

    /** Name of the bean that makes the bounded executor; not an {@code Executor}, so Spring Boot does not back off. */
    static final String FACTORY = "loomBulkheadApplicationTaskExecutorFactory";

    private static final String APPLICATION_TASK_EXECUTOR = TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME;

    private static final String TASK_EXECUTOR = "taskExecutor";

    private static final String WARNING = "loomBulkheadApplicationTaskExecutorWarning";

    private static final Log logger = LogFactory.getLog(ApplicationTaskExecutorRegistrar.class);

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
        if (!registry.containsBeanDefinition(FACTORY)) {
            return;
        }
        if (registry.containsBeanDefinition(APPLICATION_TASK_EXECUTOR)
                && isSpringBoots(registry.getBeanDefinition(APPLICATION_TASK_EXECUTOR))) {
            registry.removeBeanDefinition(APPLICATION_TASK_EXECUTOR);
            registry.registerBeanDefinition(APPLICATION_TASK_EXECUTOR, boundedExecutor());
            if (!registry.isBeanNameInUse(TASK_EXECUTOR)) {
                registry.registerAlias(APPLICATION_TASK_EXECUTOR, TASK_EXECUTOR);
            }
            return;
        }
        registry.removeBeanDefinition(FACTORY);
        // Said by a bean when the application starts, not here: ahead-of-time processing runs this while it builds.
        RootBeanDefinition warning = new RootBeanDefinition(Warning.class);
        warning.getConstructorArgumentValues()
            .addIndexedArgumentValue(0, "loom.bulkhead.task-execution.enabled=true but no bounded "
                    + "applicationTaskExecutor was created: " + reason(registry));
        warning.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
        registry.registerBeanDefinition(WARNING, warning);
    }

    private static RootBeanDefinition boundedExecutor() {
        // Made by its factory's method, not by a lambda: ahead-of-time processing (native images) can express that.
        RootBeanDefinition definition = new RootBeanDefinition();
        definition.setTargetType(BoundedVirtualTaskExecutor.class);
        definition.setFactoryBeanName(FACTORY);
        definition.setFactoryMethodName("create");
        // Made after its factory and destroyed before it.
        definition.setDependsOn(FACTORY);
        return definition;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
    }

    /** Contributes nothing: being an AOT processor excludes this registrar's own bean from the generated code. */
    @Override
    public BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        return null;
    }

    private static boolean isSpringBoots(BeanDefinition definition) {
        MethodMetadata factoryMethod = (definition instanceof AnnotatedBeanDefinition annotated)
                ? annotated.getFactoryMethodMetadata() : null;
        return factoryMethod != null && factoryMethod.getDeclaringClassName()
            .startsWith(TaskExecutionAutoConfiguration.class.getPackageName() + ".");
    }

    private static String reason(BeanDefinitionRegistry registry) {
        if (registry.containsBeanDefinition(APPLICATION_TASK_EXECUTOR)) {
            return "the application defines its own applicationTaskExecutor bean";
        }
        String[] executors = (registry instanceof ListableBeanFactory beanFactory)
                ? beanFactory.getBeanNamesForType(Executor.class, true, false) : new String[0];
        if (executors.length > 0) {
            return "like Spring Boot, it backs off because the application defines its own Executor bean(s) "
                    + Arrays.toString(executors) + "; set spring.task.execution.mode=force to create it anyway";
        }
        return "Spring Boot's task execution auto-configuration (TaskExecutionAutoConfiguration) did not create "
                + "one; it may be excluded";
    }

    /** Logs why no bounded executor was created, once the application's singletons exist. */
    static final class Warning implements SmartInitializingSingleton {

        private final String message;

        Warning(String message) {
            this.message = message;
        }

        @Override
        public void afterSingletonsInstantiated() {
            logger.warn(this.message);
        }
    }

    /** Makes the bounded executor, with the application's settings. */
    @FunctionalInterface
    interface Factory {

        BoundedVirtualTaskExecutor create();
    }
}
