package io.github.loombulkhead.sample.mode;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;

/**
 * {@code virtual-semaphore}: a virtual thread per task that acquires a {@code Semaphore(limit)} inside the
 * task before calling, the fix the reference and the JDK documentation suggest. Every waiting task is a
 * parked virtual thread. Like the reference, the semaphore is not fair.
 */
final class VirtualSemaphoreStrategy implements ConcurrencyStrategy {

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    private final Semaphore permits;

    private final int limit;

    VirtualSemaphoreStrategy(int limit) {
        this.permits = new Semaphore(limit);
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
    public Runnable decorate(Runnable call) {
        return () -> {
            try {
                this.permits.acquire();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for a semaphore permit", ex);
            }
            try {
                call.run();
            }
            finally {
                this.permits.release();
            }
        };
    }

    @Override
    public void close() {
        ConcurrencyStrategy.shutdown(this.executor, Duration.ofSeconds(10));
    }
}
