package io.github.loombulkhead.benchmarks.jmh;

import io.github.loombulkhead.BulkheadRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code @Bulkhead} overhead row limits through the context's one registry, as the starter wires it. */
class LoomAnnotationConfigurationTest {

    @Test
    void theAnnotatedBeanUsesTheRegistryBeanOfTheContext() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(
                LoomAnnotationConfiguration.class)) {
            context.getBean(LoomAnnotationConfiguration.BulkheadedCallee.class).call();
            BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
            assertThat(registry.find("overhead")).hasValueSatisfying(
                    (bulkhead) -> assertThat(bulkhead.getCompletedCount()).isOne());
        }
    }
}
