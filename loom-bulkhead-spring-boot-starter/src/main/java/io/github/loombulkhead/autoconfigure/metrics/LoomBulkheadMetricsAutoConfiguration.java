package io.github.loombulkhead.autoconfigure.metrics;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Publishes the {@code loom.bulkhead.*} meters of every bulkhead in the {@link BulkheadRegistry}; ordered
 * after Spring Boot's metrics auto-configuration so the application's meter registries exist.
 */
@AutoConfiguration(after = { MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
        SimpleMetricsExportAutoConfiguration.class, LoomBulkheadAutoConfiguration.class })
@ConditionalOnClass({ MeterRegistry.class, MetricsAutoConfiguration.class })
@ConditionalOnBean({ BulkheadRegistry.class, MeterRegistry.class })
public final class LoomBulkheadMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    BulkheadMetrics bulkheadMetrics(BulkheadRegistry bulkheadRegistry) {
        return new BulkheadMetrics(bulkheadRegistry);
    }
}
