package io.github.loombulkhead.sample.server;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.sample.SampleProperties;
import io.github.loombulkhead.sample.Scenario;
import io.github.loombulkhead.sample.client.CalleeCalls;
import io.github.loombulkhead.sample.client.CalleeEndpoint;
import io.github.loombulkhead.sample.measure.HttpExchangeCounter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * The server comparison ({@code loom.sample.run=server-compare}) in the caller, and the sampler a front server
 * it starts runs ({@code loom.sample.server.samples}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "loom.sample.role", havingValue = "caller", matchIfMissing = true)
@EnableConfigurationProperties(ServerCompareProperties.class)
class ServerCompareConfiguration {

    @Bean
    @ConditionalOnProperty(name = "loom.sample.run", havingValue = SampleProperties.RUN_SERVER_COMPARE)
    ServerComparison serverComparison(ServerCompareProperties properties, Scenario scenario, CalleeEndpoint callee,
            CalleeCalls calls, SampleProperties sample) {
        return new ServerComparison(properties, scenario, callee, calls, sample.reportDir(), System.out);
    }

    /** First: it checks for ab before the callee starts. */
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    @ConditionalOnProperty(name = "loom.sample.run", havingValue = SampleProperties.RUN_SERVER_COMPARE)
    ApplicationRunner serverCompareRunner(ServerComparison comparison) {
        return (args) -> comparison.run();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnProperty("loom.sample.server.samples")
    FrontSampler frontSampler(ServerCompareProperties properties, HttpExchangeCounter calls,
            ObjectProvider<BulkheadRegistry> registry, SampleProperties sample) {
        BulkheadRegistry bulkheads = registry.getIfAvailable();
        return new FrontSampler(properties.samples(), calls,
                (bulkheads != null) ? bulkheads.find("server").orElse(null) : null, sample.sampleInterval());
    }
}
