package io.github.loombulkhead.sample.mode;

import java.time.Duration;
import java.util.OptionalInt;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.loombulkhead.BulkheadConfig;

/**
 * {@code loom-bulkhead}: a {@link BoundedVirtualExecutor} with {@code max-concurrent-calls = limit}. A task
 * waiting for a permit is a small queue entry; it gets its virtual thread only when it may run.
 */
final class LoomBulkheadStrategy implements ConcurrencyStrategy {

    private final BoundedVirtualExecutor executor;

    LoomBulkheadStrategy(int limit, int requests, Duration maxWait) {
        this.executor = BoundedVirtualExecutor.builder(Modes.LOOM_BULKHEAD_NAME)
            .maxConcurrentCalls(limit)
            .queueCapacity(Math.max(requests, BulkheadConfig.DEFAULT_QUEUE_CAPACITY))
            .maxWaitDuration(maxWait)
            .fair(true)
            .build();
    }

    @Override
    public OptionalInt limit() {
        return OptionalInt.of(this.executor.getBulkhead().getLimit());
    }

    @Override
    public BoundedVirtualExecutor executor() {
        return this.executor;
    }

    @Override
    public void close() {
        ConcurrencyStrategy.shutdown(this.executor, Duration.ofSeconds(10));
    }
}
