package io.github.loombulkhead.autoconfigure.endpoint;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code bulkheads} Actuator endpoint when Actuator is present and the endpoint is available
 * (exposed and not switched off). Its default access is read-only.
 */
@AutoConfiguration(after = LoomBulkheadAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(BulkheadRegistry.class)
public final class LoomBulkheadEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    BulkheadsEndpoint bulkheadsEndpoint(BulkheadRegistry bulkheadRegistry) {
        return new BulkheadsEndpoint(bulkheadRegistry);
    }
}
