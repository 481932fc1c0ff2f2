package io.github.loombulkhead.autoconfigure;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.annotation.BulkheadAnnotationBeanPostProcessor;
import io.github.loombulkhead.autoconfigure.endpoint.BulkheadsEndpoint;
import io.github.loombulkhead.autoconfigure.endpoint.LoomBulkheadEndpointAutoConfiguration;
import io.github.loombulkhead.autoconfigure.http.BulkheadHttpServiceGroupConfigurer;
import io.github.loombulkhead.autoconfigure.http.BulkheadRequestFactories;
import io.github.loombulkhead.autoconfigure.http.LoomBulkheadHttpAutoConfiguration;
import io.github.loombulkhead.autoconfigure.http.PerHostBulkheadRestClientCustomizer;
import io.github.loombulkhead.autoconfigure.metrics.BulkheadMetrics;
import io.github.loombulkhead.autoconfigure.metrics.LoomBulkheadMetricsAutoConfiguration;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** Every integration switches off cleanly when its library is missing; the core wiring still starts. */
class OptionalDependenciesTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class,
                LoomBulkheadInactiveAutoConfiguration.class, LoomBulkheadHttpAutoConfiguration.class,
                LoomBulkheadMetricsAutoConfiguration.class, LoomBulkheadEndpointAutoConfiguration.class))
        .withBean(SimpleMeterRegistry.class)
        .withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.http.per-host.enabled=true",
                "management.endpoints.web.exposure.include=bulkheads");

    @Test
    void everythingPresent() {
        this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
            .hasSingleBean(BulkheadRegistry.class)
            .hasSingleBean(BulkheadMetrics.class)
            .hasSingleBean(BulkheadsEndpoint.class)
            .hasSingleBean(BulkheadHttpServiceGroupConfigurer.class)
            .hasSingleBean(PerHostBulkheadRestClientCustomizer.class)
            .hasSingleBean(BulkheadRequestFactories.class));
    }

    @Test
    void withoutMicrometer() {
        this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer"))
            .run((context) -> assertThat(context).hasNotFailed()
                .hasSingleBean(BulkheadRegistry.class)
                .hasSingleBean(BulkheadsEndpoint.class)
                .doesNotHaveBean(BulkheadMetrics.class));
    }

    @Test
    void withoutActuator() {
        this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
            .run((context) -> assertThat(context).hasNotFailed()
                .hasSingleBean(BulkheadRegistry.class)
                .hasSingleBean(BulkheadMetrics.class)
                .doesNotHaveBean(BulkheadsEndpoint.class));
    }

    @Test
    void withoutSpringWeb() {
        this.contextRunner
            .withClassLoader(new FilteredClassLoader("org.springframework.web", "org.springframework.http",
                    "org.springframework.boot.restclient", "org.springframework.boot.http"))
            .run((context) -> assertThat(context).hasNotFailed()
                .hasSingleBean(BulkheadRegistry.class)
                .hasSingleBean(BulkheadAnnotationBeanPostProcessor.class)
                .doesNotHaveBean(BulkheadHttpServiceGroupConfigurer.class)
                .doesNotHaveBean(PerHostBulkheadRestClientCustomizer.class)
                .doesNotHaveBean(BulkheadRequestFactories.class));
    }

    @Test
    void withoutHttpClient5TheInterceptorsStayButThePooledFactoryIsNotUsed() {
        this.contextRunner.withClassLoader(new FilteredClassLoader("org.apache.hc.client5"))
            .run((context) -> assertThat(context).hasNotFailed()
                .hasSingleBean(PerHostBulkheadRestClientCustomizer.class)
                .doesNotHaveBean(BulkheadRequestFactories.class));
    }
}
