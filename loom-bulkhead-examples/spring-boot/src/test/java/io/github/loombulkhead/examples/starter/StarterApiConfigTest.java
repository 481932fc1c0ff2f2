package io.github.loombulkhead.examples.starter;

import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs the starter API code of docs/configuration.md in a context with the starter's auto-configuration. */
class StarterApiConfigTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class))
        .withUserConfiguration(StarterApiConfig.class)
        .withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.instances.reports.max-concurrent-calls=4",
                "loom.bulkhead.instances.callee.max-concurrent-calls=20");

    @Test
    void executorIsBoundedByTheConfiguredBulkheadAndClosedWithTheContext() throws Exception {
        BoundedVirtualExecutor[] executor = new BoundedVirtualExecutor[1];
        this.contextRunner.run((context) -> {
            executor[0] = context.getBean(BoundedVirtualExecutor.class);
            assertThat(executor[0].getBulkhead()).isSameAs(context.getBean(BulkheadRegistry.class).bulkhead("reports"));
            assertThat(executor[0].getBulkhead().getLimit()).isEqualTo(4);
            assertThat(executor[0].submit(() -> "ran").get(30, TimeUnit.SECONDS)).isEqualTo("ran");
        });
        // Closing the context shut it down; the finished task's thread may still be on its way out.
        assertThat(executor[0].isShutdown()).isTrue();
        assertThat(executor[0].awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void customizerConfiguresComputedNamesAndLeavesTheOthersToTheProperties() {
        this.contextRunner.run((context) -> {
            BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
            assertThat(registry.bulkhead("partner-acme").getLimit()).isEqualTo(10);
            assertThat(registry.bulkhead("callee").getLimit()).isEqualTo(20);
            assertThat(registry.bulkhead("other").getLimit()).isEqualTo(100);
        });
    }
}
