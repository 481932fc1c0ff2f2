package io.github.loombulkhead.sample.mode;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** {@code thread-pool}: {@code Executors.newFixedThreadPool(limit)}, the classic bounded platform pool. */
final class ThreadPoolStrategy implements ConcurrencyStrategy {

    private final ExecutorService executor;

    private final int limit;

    ThreadPoolStrategy(int limit) {
        this.executor = Executors.newFixedThreadPool(limit);
        this.limit = limit;
    }

    @Override
    public OptionalInt limit() {
        return OptionalInt.of(this.limit);
    }

    @Override
    public ExecutorService executor() {
        return this.executor;
    }

    @Override
    public void close() {
        ConcurrencyStrategy.shutdown(this.executor, Duration.ofSeconds(10));
    }
}
