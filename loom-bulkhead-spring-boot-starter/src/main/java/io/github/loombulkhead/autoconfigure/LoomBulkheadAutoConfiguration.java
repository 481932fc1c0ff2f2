package io.github.loombulkhead.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadFactory;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.annotation.BulkheadAnnotationBeanPostProcessor;
import io.github.loombulkhead.autoconfigure.propagation.ContextPropagatingDecorator;
import io.github.loombulkhead.autoconfigure.task.BoundedVirtualTaskExecutor;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.task.TaskDecorator;

/**
 * Auto-configuration of loom-bulkhead: a {@link BulkheadRegistry} from {@code loom.bulkhead.*}, context
 * propagation for bulkhead tasks and, on request, a bounded {@code applicationTaskExecutor}. Active only when
 * the application runs on virtual threads ({@code spring.threads.virtual.enabled=true}) and
 * {@code loom.bulkhead.enabled} is not {@code false}.
 */
@AutoConfiguration(before = TaskExecutionAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "loom.bulkhead.enabled", matchIfMissing = true)
@ConditionalOnThreading(Threading.VIRTUAL)
@EnableConfigurationProperties
public final class LoomBulkheadAutoConfiguration {

    // The registry and what it is built from are infrastructure: the @Bulkhead post-processor needs them while
    // post-processors are being created, so they are static and marked as such (no "not eligible" warnings).

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LoomBulkheadProperties loomBulkheadProperties() {
        return new LoomBulkheadProperties();
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static BulkheadConfigMapper bulkheadConfigMapper(LoomBulkheadProperties properties, Environment environment,
            ResourceLoader resourceLoader) {
        BulkheadConfigMapper mapper = new BulkheadConfigMapper(properties, new PropertyOrigins(environment),
                resourceLoader.getClassLoader());
        mapper.validate();
        return mapper;
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static BulkheadRegistry bulkheadRegistry(BulkheadConfigMapper mapper,
            ObjectProvider<BulkheadRegistryCustomizer> customizers) {
        BulkheadRegistry.Builder builder = BulkheadRegistry.builder().defaultConfig(mapper.defaults());
        Map<String, BulkheadConfig> instances = mapper.instances();
        instances.forEach(builder::config);
        customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
        BulkheadRegistry registry = builder.build();
        // Configured bulkheads exist from the start, so metrics and the endpoint show them before first use.
        instances.keySet().forEach(registry::bulkhead);
        return registry;
    }

    /** Warns about configured bulkheads that nothing uses and unconfigured ones with a similarly named entry. */
    @Bean
    BulkheadNamesReporter bulkheadNamesReporter(LoomBulkheadProperties properties, BulkheadRegistry registry,
            ConfigurableListableBeanFactory beanFactory, Environment environment) {
        return new BulkheadNamesReporter(properties, registry, beanFactory, environment);
    }

    @Bean
    @ConditionalOnMissingBean
    ContextPropagatingDecorator bulkheadTaskDecorator(LoomBulkheadProperties properties, BeanFactory beanFactory,
            ObjectProvider<TaskDecorator> taskDecorators) {
        return properties.isPropagateContext() ? ContextPropagatingDecorator.create(beanFactory, taskDecorators)
                : ContextPropagatingDecorator.none();
    }

    @Bean
    @ConditionalOnMissingBean
    BoundedVirtualExecutors boundedVirtualExecutors(BulkheadRegistry registry, ContextPropagatingDecorator taskDecorator) {
        return new BoundedVirtualExecutors(registry, taskDecorator);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(BulkheadAnnotationBeanPostProcessor.class)
    static class AnnotationConfiguration {

        /** Applies {@code @Bulkhead}; asynchronous calls that wait carry the caller's context. */
        @Bean
        @ConditionalOnMissingBean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static BulkheadAnnotationBeanPostProcessor bulkheadAnnotationBeanPostProcessor(BulkheadRegistry registry,
                ObjectProvider<ContextPropagatingDecorator> taskDecorator) {
            BulkheadAnnotationBeanPostProcessor postProcessor = new BulkheadAnnotationBeanPostProcessor(registry);
            // Resolved at the first asynchronous call, so TaskDecorator beans are not created this early.
            postProcessor.setTaskDecorator((task) -> taskDecorator.getObject().apply(task));
            return postProcessor;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty("loom.bulkhead.task-execution.enabled")
    static class TaskExecutionConfiguration {

        /** Puts the bounded executor in the place of Spring Boot's, when Spring Boot creates one. */
        @Bean
        static ApplicationTaskExecutorRegistrar loomBulkheadApplicationTaskExecutorRegistrar() {
            return new ApplicationTaskExecutorRegistrar();
        }

        /**
         * Closing the context waits for the executor's tasks as spring.task.execution.shutdown.* says; its virtual
         * threads are named as Spring Boot's executor names them (spring.task.execution.thread-name-prefix + n).
         */
        @Bean(ApplicationTaskExecutorRegistrar.FACTORY)
        ApplicationTaskExecutorRegistrar.Factory loomBulkheadApplicationTaskExecutorFactory(
                BoundedVirtualExecutors executors, LoomBulkheadProperties properties,
                ObjectProvider<TaskExecutionProperties> taskExecution) {
            return () -> {
                TaskExecutionProperties springBoot = taskExecution.getIfAvailable(TaskExecutionProperties::new);
                TaskExecutionProperties.Shutdown shutdown = springBoot.getShutdown();
                Duration awaitTermination = (shutdown.isAwaitTermination()
                        && shutdown.getAwaitTerminationPeriod() != null) ? shutdown.getAwaitTerminationPeriod()
                                : Duration.ZERO;
                // No inheritable thread-locals: a task that waited would get those of the task whose permit it took.
                ThreadFactory threads = Thread.ofVirtual()
                    .name(springBoot.getThreadNamePrefix(), 1)
                    .inheritInheritableThreadLocals(false)
                    .factory();
                return new BoundedVirtualTaskExecutor(
                        executors.create(properties.getTaskExecution().getBulkhead(), threads), awaitTermination);
            };
        }
    }
}
