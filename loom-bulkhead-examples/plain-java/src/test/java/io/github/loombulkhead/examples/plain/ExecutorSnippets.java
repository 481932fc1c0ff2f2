package io.github.loombulkhead.examples.plain;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;

/** The code of docs/executor.md. */
final class ExecutorSnippets {

    private ExecutorSnippets() {
    }

    /** Whatever the tasks call; in the docs, a blocking client of the callee. */
    interface CalleeClient {

        void call(String id);
    }

    static BoundedVirtualExecutor callAll(List<String> ids, CalleeClient client) {
        // tag::call-all[]
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("callee")
                .maxConcurrentCalls(100)                  // > 0
                .queueCapacity(10_000)                    // >= 0; tasks allowed to wait
                .maxWaitDuration(Duration.ofSeconds(30))  // how long a task may wait to start
                .fair(true)                               // FIFO start order
                .build();

        List<CompletableFuture<Void>> calls = ids.stream()
                .map(id -> executor.runAsync(() -> client.call(id)))   // completes exceptionally when refused
                .toList();
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).join();
        // end::call-all[]
        return executor;
    }

    static void changeAtRuntime(BoundedVirtualExecutor executor) {
        // tag::runtime-changes[]
        executor.getBulkhead().changeLimit(150);        // starts queued tasks at once
        executor.getBulkhead().changeLimit(50);         // never blocks: takes effect as tasks finish
        executor.getBulkhead().changeMaxWaitDuration(Duration.ofSeconds(5));
        // end::runtime-changes[]
    }

    static Shared sharedThroughARegistry() {
        // tag::registry[]
        BulkheadRegistry registry = BulkheadRegistry.builder()
                .defaultConfig(BulkheadConfig.ofDefaults())
                .config("callee", BulkheadConfig.custom().maxConcurrentCalls(100).build())
                .build();
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("callee").registry(registry).build();
        // end::registry[]
        return new Shared(registry, executor);
    }

    record Shared(BulkheadRegistry registry, BoundedVirtualExecutor executor) {
    }

    static BoundedVirtualExecutor adaptive() {
        // tag::adaptive[]
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("callee")
                .maxConcurrentCalls(400)                  // the ceiling the algorithm never exceeds
                .adaptive(AdaptiveLimitConfig.custom()
                        .algorithm(AdaptiveLimitConfig.Algorithm.GRADIENT)
                        .initialLimit(20)                 // where it starts
                        .minLimit(5)                      // the lowest it goes
                        .build())
                .build();
        int limitNow = executor.getBulkhead().getLimit(); // follows the algorithm
        // end::adaptive[]
        assert limitNow == 20;
        return executor;
    }
}
