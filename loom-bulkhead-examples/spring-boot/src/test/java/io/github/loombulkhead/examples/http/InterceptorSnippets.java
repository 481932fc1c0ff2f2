package io.github.loombulkhead.examples.http;

import java.time.Duration;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;
import io.github.loombulkhead.http.PooledHttpRequestFactories;

import org.springframework.web.client.RestClient;

/** The RestClient interceptor code of docs/http-clients.md. */
final class InterceptorSnippets {

    private InterceptorSnippets() {
    }

    static RestClient perClient(BulkheadRegistry registry, String calleeUrl) {
        // tag::per-client[]
        Bulkhead callee = registry.bulkhead("callee");

        RestClient client = RestClient.builder()
                .baseUrl(calleeUrl)                                              // e.g. http://callee:8080
                .requestFactory(PooledHttpRequestFactories.forBulkhead(callee)   // see "Connection pool" below
                        .connectTimeout(Duration.ofMillis(500))
                        .readTimeout(Duration.ofSeconds(5))
                        .build())
                .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(callee))
                .build();
        // end::per-client[]
        return client;
    }

    static RestClient perHost(BulkheadRegistry registry) {
        // tag::per-host[]
        BulkheadConfig perHost = BulkheadConfig.custom().maxConcurrentCalls(20).build();

        RestClient client = RestClient.builder()
                .requestFactory(PooledHttpRequestFactories.forHosts(registry, "out:", perHost, 64).build())
                .requestInterceptor(BulkheadClientHttpRequestInterceptor.perHost(registry, "out:", perHost, 64))
                .build();
        // end::per-host[]
        return client;
    }
}
