package io.github.loombulkhead.sample.client;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.autoconfigure.BulkheadConfigMapper;
import io.github.loombulkhead.autoconfigure.BulkheadRegistryCustomizer;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.sample.mode.Modes;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Makes the {@code callee-adaptive} bulkhead adaptive with the algorithm's defaults, keeping everything its
 * {@code loom.bulkhead.instances.callee-adaptive.*} properties set: {@code max-concurrent-calls} is the ceiling.
 * A bulkhead those properties already made adaptive is left as it is.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "loom.sample.role", havingValue = "caller", matchIfMissing = true)
class AdaptiveBulkheadConfiguration {

    @Bean
    BulkheadRegistryCustomizer adaptiveCalleeBulkhead(ObjectProvider<BulkheadConfigMapper> mapper) {
        return (builder) -> {
            BulkheadConfigMapper properties = mapper.getIfAvailable();
            BulkheadConfig configured = (properties != null)
                    ? properties.instances().get(Modes.ADAPTIVE_BULKHEAD_NAME) : null;
            if (configured != null && !configured.isAdaptive()) {
                builder.config(Modes.ADAPTIVE_BULKHEAD_NAME,
                        BulkheadConfig.from(configured).adaptive(AdaptiveLimitConfig.ofDefaults()).build());
            }
        };
    }
}
