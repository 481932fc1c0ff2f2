package io.github.loombulkhead.sample.mode;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code virtual-unbounded}: a new virtual thread per task and no limit
 * ({@code newVirtualThreadPerTaskExecutor()}). Also the executor of {@code loom-bulkhead-http}, whose limit
 * sits on the HTTP client instead.
 */
final class VirtualUnboundedStrategy implements ConcurrencyStrategy {

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    @Override
    public ExecutorService executor() {
        return this.executor;
    }

    @Override
    public void close() {
        ConcurrencyStrategy.shutdown(this.executor, Duration.ofSeconds(10));
    }
}
