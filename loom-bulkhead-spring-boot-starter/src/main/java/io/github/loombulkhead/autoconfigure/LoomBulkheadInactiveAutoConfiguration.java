package io.github.loombulkhead.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;

/**
 * When loom-bulkhead is off (platform threads, or {@code loom.bulkhead.enabled=false}) but beans use
 * {@code @Bulkhead}, HTTP service groups or per-host bulkheads are configured, or the server bulkhead or the bounded
 * {@code @Async} executor is switched on, warns once at startup that those calls are not bounded and how to fix it.
 */
@AutoConfiguration
@ConditionalOnClass(name = InactiveBulkheadsReporter.BULKHEAD_ANNOTATION)
@Conditional(LoomBulkheadInactiveAutoConfiguration.InactiveCondition.class)
public final class LoomBulkheadInactiveAutoConfiguration {

    @Bean
    static InactiveBulkheadsReporter inactiveBulkheadsReporter(ConfigurableListableBeanFactory beanFactory,
            Environment environment) {
        return new InactiveBulkheadsReporter(beanFactory, environment);
    }

    @Bean
    static InactiveHttpGroupsReporter inactiveHttpGroupsReporter(Environment environment) {
        return new InactiveHttpGroupsReporter(environment);
    }

    @Bean
    @ConditionalOnBooleanProperty("loom.bulkhead.http.per-host.enabled")
    static InactiveSwitchReporter inactivePerHostReporter(Environment environment) {
        return new InactiveSwitchReporter(environment, "loom.bulkhead.http.per-host.enabled",
                "calls of RestClients to each host");
    }

    @Bean
    @ConditionalOnBooleanProperty("loom.bulkhead.server.enabled")
    static InactiveSwitchReporter inactiveServerBulkheadReporter(Environment environment) {
        return new InactiveSwitchReporter(environment, "loom.bulkhead.server.enabled", "requests");
    }

    @Bean
    @ConditionalOnBooleanProperty("loom.bulkhead.task-execution.enabled")
    static InactiveSwitchReporter inactiveTaskExecutionReporter(Environment environment) {
        return new InactiveSwitchReporter(environment, "loom.bulkhead.task-execution.enabled", "@Async methods");
    }

    /** Matches when either switch is off. */
    static final class InactiveCondition extends AnyNestedCondition {

        InactiveCondition() {
            super(ConfigurationPhase.PARSE_CONFIGURATION);
        }

        @ConditionalOnThreading(Threading.PLATFORM)
        static final class PlatformThreads {

        }

        @ConditionalOnBooleanProperty(name = "loom.bulkhead.enabled", havingValue = false)
        static final class Disabled {

        }
    }
}
