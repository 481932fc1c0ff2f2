package io.github.loombulkhead;

import java.util.concurrent.atomic.AtomicInteger;

/** Counts tasks running now and the most ever seen running at once. */
final class ConcurrencyProbe {

    private final AtomicInteger current = new AtomicInteger();

    private final AtomicInteger max = new AtomicInteger();

    void enter() {
        int now = this.current.incrementAndGet();
        this.max.accumulateAndGet(now, Math::max);
    }

    void exit() {
        this.current.decrementAndGet();
    }

    int current() {
        return this.current.get();
    }

    int max() {
        return this.max.get();
    }

    /** Starts a new observation window: the maximum restarts from the current count. */
    void resetMax() {
        this.max.set(this.current.get());
    }
}
