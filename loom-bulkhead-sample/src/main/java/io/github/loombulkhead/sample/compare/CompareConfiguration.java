package io.github.loombulkhead.sample.compare;

import java.util.Arrays;
import java.util.List;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.redis.ClusterBulkheads;
import io.github.loombulkhead.sample.SampleProperties;
import io.github.loombulkhead.sample.Scenario;
import io.github.loombulkhead.sample.client.CalleeCalls;
import io.github.loombulkhead.sample.client.CalleeEndpoint;
import io.github.loombulkhead.sample.measure.HttpExchangeCounter;
import io.github.loombulkhead.sample.measure.JvmMetrics;
import io.github.loombulkhead.sample.measure.NativeMemoryTracking;
import io.github.loombulkhead.sample.measure.TimelineSampler;
import io.github.loombulkhead.sample.mode.Modes;
import io.github.loombulkhead.sample.report.ReportWriter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The caller's measuring and running beans, and the comparison itself when {@code loom.sample.run=compare}
 * (a callee ignores that setting, even when it inherits it from the environment).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "loom.sample.role", havingValue = "caller", matchIfMissing = true)
class CompareConfiguration {

    @Bean
    JvmMetrics jvmMetrics() {
        return new JvmMetrics();
    }

    @Bean
    NativeMemoryTracking nativeMemoryTracking() {
        return NativeMemoryTracking.ofThisJvm();
    }

    @Bean(destroyMethod = "close")
    TimelineSampler timelineSampler(JvmMetrics jvm, NativeMemoryTracking nativeMemory, HttpExchangeCounter http,
            SampleProperties properties) {
        return new TimelineSampler(jvm, nativeMemory, http, properties.sampleInterval());
    }

    @Bean
    Modes modes(ObjectProvider<BulkheadRegistry> registry, Scenario scenario, ObjectProvider<ClusterBulkheads> cluster) {
        return new Modes(registry.getIfAvailable(), scenario.adaptiveMaxLimit(), cluster.getIfAvailable());
    }

    @Bean
    ModeRunner modeRunner(Modes modes, CalleeCalls calls, JvmMetrics jvm, NativeMemoryTracking nativeMemory,
            TimelineSampler sampler, ObjectProvider<MeterRegistry> registry) {
        return new ModeRunner(modes, calls, jvm, nativeMemory, sampler, registry.getIfAvailable());
    }

    @Bean
    ReportWriter reportWriter() {
        return new ReportWriter();
    }

    @Bean
    @ConditionalOnProperty(name = "loom.sample.run", havingValue = SampleProperties.RUN_COMPARE)
    Comparison comparison(SampleProperties properties, Scenario scenario, CalleeEndpoint callee, ModeRunner runner,
            JvmMetrics jvm, NativeMemoryTracking nativeMemory, ReportWriter writer) {
        return new Comparison(properties, scenario, callee, runner, jvm, nativeMemory, writer, System.out);
    }

    @Bean
    @ConditionalOnProperty(name = "loom.sample.run", havingValue = SampleProperties.RUN_COMPARE)
    ReplicatedComparison replicatedComparison(SampleProperties properties, Scenario scenario, CalleeEndpoint callee,
            CalleeCalls calls, ModeRunner runner, ReportWriter writer, ApplicationArguments arguments,
            ObjectProvider<ClusterBulkheads> cluster) {
        List<String> forwarded = Arrays.stream(arguments.getSourceArgs())
            .filter((argument) -> !argument.startsWith("--loom.sample."))
            .toList();
        return new ReplicatedComparison(properties, scenario, callee, calls, runner, writer, System.out, forwarded,
                cluster.getIfAvailable() != null);
    }

    @Bean
    @ConditionalOnProperty(name = "loom.sample.run", havingValue = SampleProperties.RUN_COMPARE)
    CompareRunner compareRunner(SampleProperties properties, Comparison comparison,
            ReplicatedComparison replicated) {
        return new CompareRunner(properties.isReplicated() ? replicated::run : comparison::run);
    }
}
