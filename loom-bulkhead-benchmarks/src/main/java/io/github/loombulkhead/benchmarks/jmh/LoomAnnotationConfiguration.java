package io.github.loombulkhead.benchmarks.jmh;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.annotation.Bulkhead;
import io.github.loombulkhead.annotation.BulkheadAnnotationBeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A Spring context with one {@code @Bulkhead("overhead")} bean (limit 100): the registry and the annotation
 * post-processor the starter wires, without its metrics (no listener on the bulkhead, so no Micrometer timer is
 * recorded per call).
 */
@Configuration(proxyBeanMethods = false)
public class LoomAnnotationConfiguration {

    @Bean
    static BulkheadRegistry bulkheadRegistry() {
        return BulkheadRegistry.builder().defaultConfig(BulkheadConfig.custom().maxConcurrentCalls(100).build()).build();
    }

    @Bean
    static BulkheadAnnotationBeanPostProcessor bulkheadAnnotationBeanPostProcessor(BulkheadRegistry bulkheadRegistry) {
        return new BulkheadAnnotationBeanPostProcessor(bulkheadRegistry);
    }

    @Bean
    BulkheadedCallee bulkheadedCallee() {
        return new BulkheadedCallee();
    }

    /** The bounded bean: a class without interface, proxied with CGLIB like the {@code @ConcurrencyLimit} one. */
    public static class BulkheadedCallee {

        private int count;

        /** Returns a running count, so the call cannot be optimised away. */
        @Bulkhead("overhead")
        public int call() {
            return ++this.count;
        }
    }
}
