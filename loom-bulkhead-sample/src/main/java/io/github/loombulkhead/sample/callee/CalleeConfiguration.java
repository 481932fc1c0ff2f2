package io.github.loombulkhead.sample.callee;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Beans of the callee role ({@code loom.sample.role=callee}). */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "loom.sample.role", havingValue = "callee")
class CalleeConfiguration {

    @Bean
    TomcatWorkers tomcatWorkers() {
        return new TomcatWorkers();
    }

    @Bean(destroyMethod = "close")
    CalleeCapacity calleeCapacity(TomcatWorkers workers) {
        return new CalleeCapacity(workers);
    }
}
