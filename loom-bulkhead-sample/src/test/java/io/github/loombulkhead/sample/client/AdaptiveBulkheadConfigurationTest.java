package io.github.loombulkhead.sample.client;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.sample.mode.Modes;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code callee-adaptive} bulkhead is adaptive at the algorithm's defaults, under its configured ceiling. */
class AdaptiveBulkheadConfigurationTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class))
        .withUserConfiguration(AdaptiveBulkheadConfiguration.class)
        .withPropertyValues("spring.threads.virtual.enabled=true");

    @Test
    void configuredMaxConcurrentCallsIsTheCeilingOfTheDefaultAlgorithm() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.instances.callee-adaptive.max-concurrent-calls=300",
                    "loom.bulkhead.instances.callee-adaptive.max-wait-duration=7s",
                    "loom.bulkhead.instances.callee.max-concurrent-calls=100")
            .run((context) -> {
                BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                Bulkhead adaptive = registry.bulkhead(Modes.ADAPTIVE_BULKHEAD_NAME);
                assertThat(adaptive.isAdaptive()).isTrue();
                assertThat(adaptive.getLimitAlgorithm().getName())
                    .isEqualTo(AdaptiveLimitConfig.DEFAULT_ALGORITHM.getName());
                assertThat(adaptive.getLimit()).isEqualTo(AdaptiveLimitConfig.DEFAULT_INITIAL_LIMIT);
                assertThat(adaptive.getConfig().getMaxConcurrentCalls()).isEqualTo(300);
                assertThat(adaptive.getConfig().getAdaptive().getMaxLimit()).isEqualTo(300);
                assertThat(adaptive.getConfig().getMaxWaitDuration()).hasSeconds(7);
                Bulkhead fixed = registry.bulkhead(Modes.HTTP_BULKHEAD_NAME);
                assertThat(fixed.isAdaptive()).isFalse();
                assertThat(fixed.getLimit()).isEqualTo(100);
            });
    }

    @Test
    void withoutAnEntryOfItsOwnNothingIsChanged() {
        this.contextRunner.run((context) -> assertThat(
                context.getBean(BulkheadRegistry.class).bulkhead(Modes.ADAPTIVE_BULKHEAD_NAME).isAdaptive())
            .isFalse());
    }
}
