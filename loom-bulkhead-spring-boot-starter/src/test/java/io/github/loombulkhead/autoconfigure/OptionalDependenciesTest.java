package io.github.loombulkhead.autoconfigure;

import java.util.ArrayList;
import java.util.List;

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
import io.github.loombulkhead.limit.DropClassifier;
import io.github.loombulkhead.limit.Outcome;
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
    void withoutSpringWebTheDefaultDropListCanBeExtended() {
        // The documented way to add a drop type: the defaults, Spring Web's 503 and 429 included, and the new one.
        List<String> dropExceptions = new ArrayList<>(List.of("java.util.concurrent.TimeoutException",
                "java.io.InterruptedIOException", "java.net.ConnectException", "java.net.http.HttpTimeoutException",
                "org.springframework.web.client.HttpServerErrorException$ServiceUnavailable",
                "org.springframework.web.client.HttpClientErrorException$TooManyRequests", "java.io.IOException"));
        String[] properties = new String[dropExceptions.size()];
        for (int i = 0; i < properties.length; i++) {
            properties[i] = "loom.bulkhead.defaults.adaptive.drop-exceptions[" + i + "]=" + dropExceptions.get(i);
        }
        this.contextRunner
            .withClassLoader(new FilteredClassLoader("org.springframework.web", "org.springframework.http",
                    "org.springframework.boot.restclient", "org.springframework.boot.http"))
            .withPropertyValues(properties)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                DropClassifier drops = context.getBean(BulkheadRegistry.class).resolveConfig("any").getDropClassifier();
                assertThat(drops.classify(new java.io.IOException("refused"))).isEqualTo(Outcome.DROPPED);
                assertThat(drops.classify(new IllegalStateException("answered"))).isEqualTo(Outcome.SUCCESS);
            });
        // A type of the list that is not one of the defaults must still be on the class path.
        this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.web"))
            .withPropertyValues("loom.bulkhead.defaults.adaptive.drop-exceptions[0]="
                    + "org.springframework.web.client.ResourceAccessException")
            .run((context) -> assertThat(context).hasFailed());
    }

    @Test
    void withoutHttpClient5TheInterceptorsStayButThePooledFactoryIsNotUsed() {
        this.contextRunner.withClassLoader(new FilteredClassLoader("org.apache.hc.client5"))
            .run((context) -> assertThat(context).hasNotFailed()
                .hasSingleBean(PerHostBulkheadRestClientCustomizer.class)
                .doesNotHaveBean(BulkheadRequestFactories.class));
    }
}
