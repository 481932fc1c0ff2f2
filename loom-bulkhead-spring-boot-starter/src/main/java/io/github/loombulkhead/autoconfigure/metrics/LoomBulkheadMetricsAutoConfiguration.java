package io.github.loombulkhead.autoconfigure.metrics;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;

/**
 * Publishes the {@code loom.bulkhead.*} meters of every bulkhead in the {@link BulkheadRegistry}; ordered
 * after Spring Boot's metrics auto-configuration so the application's meter registries exist. Active under the
 * same switches as {@link LoomBulkheadAutoConfiguration}, even when the application defines its own registry.
 */
@AutoConfiguration(after = { MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
        SimpleMetricsExportAutoConfiguration.class, LoomBulkheadAutoConfiguration.class })
@ConditionalOnClass({ MeterRegistry.class, MetricsAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "loom.bulkhead.enabled", matchIfMissing = true)
@ConditionalOnThreading(Threading.VIRTUAL)
@ConditionalOnBean({ BulkheadRegistry.class, MeterRegistry.class })
public final class LoomBulkheadMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    BulkheadMetrics bulkheadMetrics(BulkheadRegistry bulkheadRegistry) {
        return new BulkheadMetrics(bulkheadRegistry);
    }
}
