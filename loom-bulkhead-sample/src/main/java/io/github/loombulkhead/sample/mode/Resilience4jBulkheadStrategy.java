package io.github.loombulkhead.sample.mode;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;

/**
 * {@code resilience4j-bulkhead}: a virtual thread per task, each call decorated by a resilience4j semaphore
 * {@link Bulkhead} with {@code maxConcurrentCalls = limit} and a wait long enough for every task's turn.
 */
final class Resilience4jBulkheadStrategy implements ConcurrencyStrategy {

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    private final Bulkhead bulkhead;

    Resilience4jBulkheadStrategy(int limit, Duration maxWait) {
        this.bulkhead = Bulkhead.of(Modes.RESILIENCE4J_NAME,
                BulkheadConfig.custom().maxConcurrentCalls(limit).maxWaitDuration(maxWait).build());
    }

    @Override
    public OptionalInt limit() {
        return OptionalInt.of(this.bulkhead.getBulkheadConfig().getMaxConcurrentCalls());
    }

    @Override
    public ExecutorService executor() {
        return this.executor;
    }

    @Override
    public Runnable decorate(Runnable call) {
        return Bulkhead.decorateRunnable(this.bulkhead, call);
    }

    @Override
    public void close() {
        ConcurrencyStrategy.shutdown(this.executor, Duration.ofSeconds(10));
    }
}
