package io.github.loombulkhead.examples.starter;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.autoconfigure.BoundedVirtualExecutors;
import io.github.loombulkhead.autoconfigure.BulkheadRegistryCustomizer;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The starter's Java API as docs/configuration.md shows it. */
@Configuration(proxyBeanMethods = false)
class StarterApiConfig {

    // tag::executors[]
    @Bean   // bounded by the registry's "reports" bulkhead: loom.bulkhead.instances.reports.*, meters, endpoint
    BoundedVirtualExecutor reportExecutor(BoundedVirtualExecutors executors) {
        return executors.create("reports");     // a bean: closed with the application context
    }
    // end::executors[]

    // tag::registry-customizer[]
    @Bean   // every bulkhead named partner-* gets exactly this config (10 permits, the library's defaults
            // otherwise: loom.bulkhead.defaults.* does not apply to it); null leaves a name to loom.bulkhead.*
    BulkheadRegistryCustomizer partnerBulkheads() {
        BulkheadConfig partner = BulkheadConfig.custom().maxConcurrentCalls(10).build();
        return (builder) -> builder.configResolver((name) -> name.startsWith("partner-") ? partner : null);
    }
    // end::registry-customizer[]
}
