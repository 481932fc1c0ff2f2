package io.github.loombulkhead.examples.plain;

import java.time.Duration;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;
import io.github.loombulkhead.http.PooledHttpRequestFactories;

import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * The README's plain-Java quick start: a bounded executor and a RestClient that share one bulkhead; closing it closes
 * the executor (waiting for its tasks) and the client's connection pool.
 */
@SuppressWarnings("try") // close() declares what the pool's destroy() declares
record PlainJavaQuickStart(BoundedVirtualExecutor executor, Bulkhead callee, HttpComponentsClientHttpRequestFactory pool,
        RestClient client) implements AutoCloseable {

    static PlainJavaQuickStart create(String calleeUrl) {
        // tag::quick-start[]
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("callee")
                .maxConcurrentCalls(100)                  // at most 100 tasks run at once
                .queueCapacity(10_000)                    // at most 10,000 wait (without threads)
                .maxWaitDuration(Duration.ofSeconds(30))  // a task waits at most 30 s to start
                .fair(true)                               // tasks start in submission order
                .build();

        Bulkhead callee = executor.getBulkhead();         // or registry.bulkhead("callee"): one limit per name
        HttpComponentsClientHttpRequestFactory pool =     // sized to the limit; destroy() it when the client is done
                PooledHttpRequestFactories.forBulkhead(callee).build();
        RestClient client = RestClient.builder()          // HTTP calls share the executor's limit and queue
                .baseUrl(calleeUrl)                       // e.g. http://callee:8080
                .requestFactory(pool)
                .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(callee))
                .build();
        // end::quick-start[]
        return new PlainJavaQuickStart(executor, callee, pool, client);
    }

    @Override
    public void close() throws Exception {
        this.executor.close();
        this.pool.destroy();
    }
}
