package io.github.loombulkhead.sample;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.sample.mode.Modes;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The caller's defaults make the {@code callee-adaptive} bulkhead adaptive through the starter's properties,
 * with the adaptive max limit as its ceiling and everything else at the algorithm's defaults; options given on
 * the command line win over them.
 */
class AdaptiveCalleeBulkheadTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class))
        .withInitializer((context) -> new SampleEnvironmentPostProcessor()
            .postProcessEnvironment(context.getEnvironment(), new SpringApplication()));

    @Test
    void adaptiveAtTheAlgorithmsDefaultsUnderTheAdaptiveMaxLimit() {
        this.contextRunner.run((context) -> {
            BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
            Bulkhead adaptive = registry.bulkhead(Modes.ADAPTIVE_BULKHEAD_NAME);
            assertThat(adaptive.isAdaptive()).isTrue();
            assertThat(adaptive.getLimitAlgorithm().getName())
                .isEqualTo(AdaptiveLimitConfig.DEFAULT_ALGORITHM.getName());
            assertThat(adaptive.getLimit()).isEqualTo(AdaptiveLimitConfig.DEFAULT_INITIAL_LIMIT);
            assertThat(adaptive.getConfig().getAdaptive().getMinLimit()).isEqualTo(AdaptiveLimitConfig.DEFAULT_MIN_LIMIT);
            assertThat(adaptive.getConfig().getMaxConcurrentCalls()).as("ceiling").isEqualTo(1_000);
            assertThat(adaptive.getConfig().getQueueCapacity()).isEqualTo(registry.bulkhead(Modes.HTTP_BULKHEAD_NAME)
                .getConfig()
                .getQueueCapacity());
            Bulkhead fixed = registry.bulkhead(Modes.HTTP_BULKHEAD_NAME);
            assertThat(fixed.isAdaptive()).isFalse();
            assertThat(fixed.getLimit()).isEqualTo(100);
        });
    }

    @Test
    void ceilingIsTheAdaptiveMaxLimit() {
        this.contextRunner.withPropertyValues("loom.sample.adaptive.max-limit=300")
            .run((context) -> assertThat(context.getBean(BulkheadRegistry.class)
                .bulkhead(Modes.ADAPTIVE_BULKHEAD_NAME)
                .getConfig()
                .getMaxConcurrentCalls()).isEqualTo(300));
    }

    @Test
    void theStartersOwnOptionsWin() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.instances.callee-adaptive.adaptive.algorithm=aimd",
                    "loom.bulkhead.instances.callee-adaptive.adaptive.initial-limit=50")
            .run((context) -> {
                Bulkhead adaptive = context.getBean(BulkheadRegistry.class).bulkhead(Modes.ADAPTIVE_BULKHEAD_NAME);
                assertThat(adaptive.getLimitAlgorithm().getName()).isEqualTo("aimd");
                assertThat(adaptive.getLimit()).isEqualTo(50);
            });
    }
}
