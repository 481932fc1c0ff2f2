package io.github.loombulkhead.benchmarks.report;

import java.util.LinkedHashMap;
import java.util.Map;

/** Row order and display names of every benchmark method and harness mode. */
final class Labels {

    static final Map<String, String> BURST = ordered(
            "semaphoreBaseline", "virtual thread per task + `Semaphore(100)` **(baseline)**",
            "loomBulkhead", "**loom-bulkhead** `BoundedVirtualExecutor` (fair)",
            "springSimpleAsync", "Spring `SimpleAsyncTaskExecutor` (virtual, `concurrencyLimit` 100)",
            "resilience4jBulkhead", "resilience4j `Bulkhead` in a virtual thread per task",
            "threadPool", "`ThreadPoolExecutor(100)` (platform threads)",
            "referenceVirtualLoops", "reference: 100 virtual threads loop over the tasks, no limiter",
            "referencePlatformLoops", "reference: 100 platform threads loop over the tasks, no limiter");

    static final Map<String, String> OVERHEAD = ordered(
            "semaphoreBaseline", "`Semaphore.tryAcquire()` + `release()` **(baseline)**",
            "loomTryAcquireRelease", "**loom** `tryAcquirePermit()` + `releasePermit()`",
            "loomTryAcquireOnComplete", "**loom** `tryAcquirePermit()` + `onComplete(n)`",
            "loomTimedTryAcquireOnComplete", "**loom** `tryAcquirePermit()` + `onComplete(n)`, timed (2× `nanoTime`)",
            "loomTimedAcquireOnComplete", "**loom** `acquirePermit()` + `onComplete(n)`, timed",
            "loomAnnotation", "**loom** `@Bulkhead` method (Spring proxy), without metrics",
            "loomHttpInterceptor", "**loom** `BulkheadClientHttpRequestInterceptor`, no I/O, without metrics",
            "resilience4jTryAcquireOnComplete", "resilience4j `tryAcquirePermission()` + `onComplete()`",
            "resilience4jDecorated", "resilience4j `Bulkhead.decorateSupplier(...)`",
            "springConcurrencyLimit", "Spring `@ConcurrencyLimit(100)` method (Spring proxy)",
            "springProxyOnly", "reference: Spring proxy, pass-through advice, no limiter",
            "nanoTimePair", "reference: two `System.nanoTime()` reads");

    /** Overhead rows that go through a Spring proxy; the report also shows them net of {@code springProxyOnly}. */
    static final java.util.Set<String> PROXIED = java.util.Set.of("loomAnnotation", "springConcurrencyLimit");

    static final Map<String, String> HTTP = ordered(
            "plain", "RestClient, no limiter",
            "noopInterceptor", "reference: pass-through interceptor, no limiter",
            "semaphoreInterceptor", "interceptor around `Semaphore(100)` **(baseline)**",
            "loomPerClient", "**loom** `BulkheadClientHttpRequestInterceptor.perClient`",
            "loomPerHost", "**loom** `BulkheadClientHttpRequestInterceptor.perHost`");

    static final Map<String, String> MEMORY = ordered(
            "semaphoreVirtualThreads", "virtual thread parked on `Semaphore(100)` **(baseline)**",
            "loomBulkhead", "**loom-bulkhead** queue entry (no thread)",
            "resilience4jVirtualThreads", "virtual thread parked in resilience4j `Bulkhead`",
            "springSimpleAsync", "Spring `SimpleAsyncTaskExecutor`: blocked submitter (a virtual thread)",
            "threadPool", "`ThreadPoolExecutor(100)` queue entry");

    static final Map<String, String> FAIRNESS = ordered(
            "semaphoreNonFair", "`new Semaphore(100)` (non-fair) **(baseline)**",
            "loomFair", "**loom-bulkhead**, fair (default)",
            "semaphoreFair", "`new Semaphore(100, true)`",
            "loomNonFair", "**loom-bulkhead**, `fair(false)` (newest first)");

    private Labels() {
    }

    private static Map<String, String> ordered(String... keysAndLabels) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndLabels.length; i += 2) {
            map.put(keysAndLabels[i], keysAndLabels[i + 1]);
        }
        return map;
    }
}
