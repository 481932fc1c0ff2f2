package io.github.loombulkhead.autoconfigure.endpoint;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code bulkheads} Actuator endpoint when Actuator is present and the endpoint is available
 * (exposed and not switched off), under the same switches as {@link LoomBulkheadAutoConfiguration}. Its default
 * access is read-only.
 */
@AutoConfiguration(after = LoomBulkheadAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBooleanProperty(name = "loom.bulkhead.enabled", matchIfMissing = true)
@ConditionalOnThreading(Threading.VIRTUAL)
@ConditionalOnBean(BulkheadRegistry.class)
public final class LoomBulkheadEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    BulkheadsEndpoint bulkheadsEndpoint(BulkheadRegistry bulkheadRegistry,
            ObjectProvider<LeasedLimitFallback> fallbacks) {
        // Asked at each write: the cluster auto-configuration's may come later.
        return new BulkheadsEndpoint(bulkheadRegistry,
                (bulkhead) -> fallbacks.orderedStream().anyMatch((fallback) -> fallback.isInFallback(bulkhead)));
    }

    @Bean
    @ConditionalOnAvailableEndpoint(BulkheadsEndpoint.class)
    static OperationInvokerAdvisor loomBulkheadWriteFieldsAdvisor() {
        return new WriteFieldsAdvisor();
    }
}
