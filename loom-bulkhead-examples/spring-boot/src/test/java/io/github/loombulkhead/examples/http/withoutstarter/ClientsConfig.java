package io.github.loombulkhead.examples.http.withoutstarter;

import java.util.List;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.annotation.BulkheadAnnotationBeanPostProcessor;
import io.github.loombulkhead.examples.http.CalleeClient;
import io.github.loombulkhead.http.PooledHttpRequestFactories;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;
import org.springframework.web.service.registry.ImportHttpServices;

// tag::without-starter[]
@Configuration
@ImportHttpServices(group = "callee", types = CalleeClient.class)
class ClientsConfig {

    @Bean
    static BulkheadRegistry bulkheadRegistry() {
        return BulkheadRegistry.builder()
                .config("callee", BulkheadConfig.custom().maxConcurrentCalls(100).build())
                .config("callee-reports", BulkheadConfig.custom().maxConcurrentCalls(20).build())
                .build();
    }

    @Bean
    static BulkheadAnnotationBeanPostProcessor bulkheadAnnotationBeanPostProcessor(BulkheadRegistry registry) {
        return new BulkheadAnnotationBeanPostProcessor(registry);
    }

    @Bean   // a pool as large as the client's bulkheads allow together; HttpClient 5's default lets 5 per host through
    HttpComponentsClientHttpRequestFactory calleeRequestFactory(BulkheadRegistry registry) {
        return PooledHttpRequestFactories
                .forBulkheads(List.of(registry.bulkhead("callee"), registry.bulkhead("callee-reports")))
                .build();
    }

    @Bean   // the group's base URL and its pool
    RestClientHttpServiceGroupConfigurer calleeGroup(@Value("${callee.base-url}") String baseUrl,
            HttpComponentsClientHttpRequestFactory calleeRequestFactory) {
        return (groups) -> groups.filterByName("callee")
                .forEachClient((group, builder) -> builder.baseUrl(baseUrl).requestFactory(calleeRequestFactory));
    }
}
// end::without-starter[]
