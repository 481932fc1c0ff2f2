package io.github.loombulkhead;

import java.time.Duration;

import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.DropClassifier;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** {@code Builder.registry(..)}: the registry's configuration of the name wins over the builder's defaults. */
class ExecutorBuilderRegistryTest {

    private final BulkheadRegistry registry = BulkheadRegistry.builder()
        .defaultConfig(BulkheadConfig.custom().maxConcurrentCalls(40).build())
        .config("callee", BulkheadConfig.custom().maxConcurrentCalls(7).queueCapacity(3).build())
        .build();

    @Test
    void theRegistrysConfigurationOfTheNameIsUsedWhenTheBulkheadDoesNotExistYet() {
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("callee").registry(this.registry).build()) {
            assertThat(executor.getBulkhead().getLimit()).isEqualTo(7);
            assertThat(executor.getBulkhead().getConfig().getQueueCapacity()).isEqualTo(3);
            assertThat(executor.getBulkhead()).isSameAs(this.registry.bulkhead("callee"));
        }
    }

    @Test
    void builderSettingsThatAgreeWithTheRegistryAreAccepted() {
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("callee")
            .registry(this.registry)
            .maxConcurrentCalls(7)
            .build()) {
            assertThat(executor.getBulkhead().getLimit()).isEqualTo(7);
        }
    }

    @Test
    void builderSettingsThatContradictTheRegistryFailNamingBoth() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> BoundedVirtualExecutor.builder("callee")
                .registry(this.registry)
                .maxConcurrentCalls(100)
                .maxWaitDuration(Duration.ofSeconds(5))
                .build())
            .withMessageContaining("Bulkhead 'callee'")
            .withMessageContaining("maxConcurrentCalls=100 but the registry's configuration has 7")
            .withMessageContaining("maxWaitDuration=PT5S but the registry's configuration has PT1M");
        assertThat(this.registry.find("callee")).isEmpty();
    }

    @Test
    void builderSettingsThatContradictAnExistingBulkheadFailNamingBoth() {
        try (BoundedVirtualExecutor first = BoundedVirtualExecutor.builder("shared")
            .registry(this.registry)
            .maxConcurrentCalls(5)
            .build()) {
            assertThatIllegalArgumentException()
                .isThrownBy(() -> BoundedVirtualExecutor.builder("shared")
                    .registry(this.registry)
                    .maxConcurrentCalls(50)
                    .queueCapacity(0)
                    .build())
                .withMessage("Bulkhead 'shared': the builder sets maxConcurrentCalls=50 but the registry's existing "
                        + "bulkhead has 5, queueCapacity=0 but the registry's existing bulkhead has 10000; configure "
                        + "the bulkhead in one place, the registry or the builder");
            // A limit changed at runtime does not make the same builder fail.
            first.getBulkhead().changeLimit(20);
            try (BoundedVirtualExecutor second = BoundedVirtualExecutor.builder("shared")
                .registry(this.registry)
                .maxConcurrentCalls(5)
                .build()) {
                assertThat(second.getBulkhead()).isSameAs(first.getBulkhead());
                assertThat(second.getBulkhead().getLimit()).isEqualTo(20);
            }
        }
    }

    @Test
    void equalSettingsBuiltSeparatelyAgree() {
        // The ceiling is maxConcurrentCalls, not the adaptive config's default max limit of 1,000, and below the
        // default start of 50: the bulkhead holds the adaptive config adjusted to it.
        java.util.function.Supplier<AdaptiveLimitConfig> adaptive = () -> AdaptiveLimitConfig.custom().build();
        try (BoundedVirtualExecutor first = BoundedVirtualExecutor.builder("flexible")
            .registry(this.registry)
            .maxConcurrentCalls(40)
            .adaptive(adaptive.get())
            .dropClassifier(DropClassifier.of(java.util.List.of(IllegalStateException.class)))
            .build();
                BoundedVirtualExecutor second = BoundedVirtualExecutor.builder("flexible")
                    .registry(this.registry)
                    .maxConcurrentCalls(40)
                    .adaptive(adaptive.get())
                    .dropClassifier(DropClassifier.of(java.util.List.of(IllegalStateException.class)))
                    .build()) {
            assertThat(second.getBulkhead()).isSameAs(first.getBulkhead());
        }
        // A different adaptive limit still conflicts.
        try (BoundedVirtualExecutor first = BoundedVirtualExecutor.builder("other-flexible")
            .registry(this.registry)
            .maxConcurrentCalls(40)
            .adaptive(adaptive.get())
            .build()) {
            assertThatIllegalArgumentException().isThrownBy(() -> BoundedVirtualExecutor.builder("other-flexible")
                .registry(this.registry)
                .maxConcurrentCalls(40)
                .adaptive(AdaptiveLimitConfig.custom().initialLimit(5).build())
                .build())
                .withMessageContaining("an adaptive limit, but the registry's existing bulkhead has its own adaptive "
                        + "limit");
        }
    }

    @Test
    void aDropClassifierTheRegistryWouldIgnoreFails() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> BoundedVirtualExecutor.builder("callee")
                .registry(this.registry)
                .dropClassifier(DropClassifier.of(java.util.List.of(IllegalStateException.class)))
                .build())
            .withMessage("Bulkhead 'callee': the builder sets a drop classifier, but the registry's configuration "
                    + "has its own; configure the bulkhead in one place, the registry or the builder");
    }

    @Test
    void aNameWithoutItsOwnConfigurationStartsFromTheRegistryDefaultsWithTheBuilderSettings() {
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("other")
            .registry(this.registry)
            .queueCapacity(5)
            .build()) {
            assertThat(executor.getBulkhead().getLimit()).as("registry default").isEqualTo(40);
            assertThat(executor.getBulkhead().getConfig().getQueueCapacity()).as("builder").isEqualTo(5);
        }
    }

    @Test
    void withoutARegistryTheBuilderDefaultsApply() {
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("plain").build()) {
            assertThat(executor.getBulkhead().getLimit()).isEqualTo(BulkheadConfig.DEFAULT_MAX_CONCURRENT_CALLS);
        }
    }
}
