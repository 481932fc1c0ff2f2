package io.github.loombulkhead.examples.plain;

import java.time.Duration;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;
import io.github.loombulkhead.http.PooledHttpRequestFactories;

import org.springframework.web.client.RestClient;

/** The README's plain-Java quick start: a bounded executor and a RestClient that share one bulkhead. */
record PlainJavaQuickStart(BoundedVirtualExecutor executor, Bulkhead callee, RestClient client) {

    static PlainJavaQuickStart create(String calleeUrl) {
        // tag::quick-start[]
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("callee")
                .maxConcurrentCalls(100)                  // at most 100 tasks run at once
                .queueCapacity(10_000)                    // at most 10,000 wait (without threads)
                .maxWaitDuration(Duration.ofSeconds(30))  // a task waits at most 30 s to start
                .fair(true)                               // tasks start in submission order
                .build();

        Bulkhead callee = executor.getBulkhead();         // or registry.bulkhead("callee"): one limit per name
        RestClient client = RestClient.builder()          // HTTP calls share the executor's limit and queue
                .baseUrl(calleeUrl)                       // e.g. http://callee:8080
                .requestFactory(PooledHttpRequestFactories.forBulkhead(callee).build())  // pool sized to the limit
                .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(callee))
                .build();
        // end::quick-start[]
        return new PlainJavaQuickStart(executor, callee, client);
    }
}
