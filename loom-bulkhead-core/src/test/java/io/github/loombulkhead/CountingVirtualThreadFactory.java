package io.github.loombulkhead;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A virtual-thread factory that counts the threads it made which have not finished yet.
 *
 * <p>A thread counts as alive from the moment it is created until the last statement of its
 * runnable (the executor's own bookkeeping included) has run; {@link #maxAlive()} is sampled at each
 * creation, which is the only moment the count can rise. Enumerating threads instead
 * ({@code Thread.getAllStackTraces()}) does not see virtual threads at all.
 */
final class CountingVirtualThreadFactory implements ThreadFactory {

    private final ThreadFactory delegate;

    private final AtomicInteger created = new AtomicInteger();

    private final AtomicInteger alive = new AtomicInteger();

    private final AtomicInteger maxAlive = new AtomicInteger();

    CountingVirtualThreadFactory(String namePrefix) {
        this.delegate = Thread.ofVirtual().name(namePrefix, 0).factory();
    }

    CountingVirtualThreadFactory(Thread.Builder.OfVirtual builder) {
        this.delegate = builder.factory();
    }

    @Override
    public Thread newThread(Runnable task) {
        Thread thread = this.delegate.newThread(() -> {
            try {
                task.run();
            }
            finally {
                this.alive.decrementAndGet();
            }
        });
        this.created.incrementAndGet();
        this.maxAlive.accumulateAndGet(this.alive.incrementAndGet(), Math::max);
        return thread;
    }

    /** Threads created so far. */
    int created() {
        return this.created.get();
    }

    /** Threads created and not finished now. */
    int alive() {
        return this.alive.get();
    }

    /** The most threads ever alive at once. */
    int maxAlive() {
        return this.maxAlive.get();
    }
}
