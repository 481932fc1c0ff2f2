package io.github.loombulkhead.autoconfigure.http;


import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.annotation.BulkheadAnnotationBeanPostProcessor;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties;
import io.github.loombulkhead.autoconfigure.endpoint.BulkheadsEndpoint;
import io.github.loombulkhead.autoconfigure.endpoint.LoomBulkheadEndpointAutoConfiguration;
import io.github.loombulkhead.autoconfigure.metrics.BulkheadMetrics;
import io.github.loombulkhead.autoconfigure.metrics.LoomBulkheadMetricsAutoConfiguration;
import io.github.loombulkhead.http.LoopbackServer;
import io.github.loombulkhead.http.LoopbackServerExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.service.registry.ImportHttpServices;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The set-up documented for applications without the starter (docs/http-clients.md: their own
 * {@link BulkheadRegistry} and {@link BulkheadAnnotationBeanPostProcessor}) keeps working with the starter on the
 * class path while the starter is inactive: the starter adds nothing and does not claim the @Bulkhead calls are
 * unbounded; only its own per-host switch, set here and not applied, is reported.
 */
@ExtendWith({ LoopbackServerExtension.class, OutputCaptureExtension.class })
class InactiveStarterWithOwnRegistryTest {

    private LoopbackServer callee;

    private ApplicationContextRunner contextRunner;

    @BeforeEach
    void setUp(LoopbackServer callee) {
        this.callee = callee;
        this.contextRunner = HttpServiceApplication.contextRunner(callee, "recipe")
            .withConfiguration(AutoConfigurations.of(LoomBulkheadMetricsAutoConfiguration.class,
                    LoomBulkheadEndpointAutoConfiguration.class))
            .withUserConfiguration(WithoutTheStarterConfiguration.class)
            .withBean(SimpleMeterRegistry.class)
            .withPropertyValues("management.endpoints.web.exposure.include=bulkheads",
                    "loom.bulkhead.http.per-host.enabled=true");
    }

    @Test
    void ownRegistryWithPlatformThreads(CapturedOutput output) {
        this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=false")
            .run((context) -> assertTheApplicationsOwnBulkheadBoundsTheCalls(context));
        assertThatOnlyThePerHostSwitchIsReportedAsNotApplied(output);
    }

    @Test
    void ownRegistryWithLoomBulkheadDisabled(CapturedOutput output) {
        this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.enabled=false")
            .run((context) -> assertTheApplicationsOwnBulkheadBoundsTheCalls(context));
        assertThatOnlyThePerHostSwitchIsReportedAsNotApplied(output);
    }

    /** The application's own post-processor bounds the @Bulkhead calls; the starter's per-host bulkheads are off. */
    private static void assertThatOnlyThePerHostSwitchIsReportedAsNotApplied(CapturedOutput output) {
        assertThat(output).doesNotContain("@Bulkhead is used by")
            .containsOnlyOnce("loom.bulkhead.http.per-host.enabled is true but loom-bulkhead is INACTIVE");
    }

    private void assertTheApplicationsOwnBulkheadBoundsTheCalls(AssertableApplicationContext context)
            throws InterruptedException {
        assertThat(context).hasNotFailed()
            .doesNotHaveBean(LoomBulkheadProperties.class)
            .doesNotHaveBean(BulkheadHttpServiceGroupConfigurer.class)
            .doesNotHaveBean(PerHostBulkheadRestClientCustomizer.class)
            .doesNotHaveBean(BulkheadRequestFactories.class)
            .doesNotHaveBean(BulkheadMetrics.class)
            .doesNotHaveBean(BulkheadsEndpoint.class);
        assertThat(context).getBean(BulkheadRegistry.class).isSameAs(WithoutTheStarterConfiguration.REGISTRY);
        CalleeClient client = context.getBean(CalleeClient.class);
        Bulkhead x = WithoutTheStarterConfiguration.REGISTRY.bulkhead("x");
        long completedBefore = x.getCompletedCount();
        HeldCalls.assertExactlyTheLimitReaches(this.callee, x, client::slow);
        assertThat(x.getCompletedCount() - completedBefore).isEqualTo(3);
    }

    /** The recipe of docs/http-clients.md, "Without the starter". */
    @Configuration(proxyBeanMethods = false)
    @ImportHttpServices(group = "recipe", types = CalleeClient.class)
    static class WithoutTheStarterConfiguration {

        static final BulkheadRegistry REGISTRY = BulkheadRegistry.builder()
            .config("x", BulkheadConfig.custom().maxConcurrentCalls(2).build())
            .build();

        @Bean
        static BulkheadRegistry bulkheadRegistry() {
            return REGISTRY;
        }

        @Bean
        static BulkheadAnnotationBeanPostProcessor bulkheadAnnotationBeanPostProcessor(BulkheadRegistry registry) {
            return new BulkheadAnnotationBeanPostProcessor(registry);
        }
    }
}
