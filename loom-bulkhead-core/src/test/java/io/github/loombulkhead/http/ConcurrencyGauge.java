package io.github.loombulkhead.http;

import java.util.concurrent.atomic.AtomicInteger;

/** Counts what is in progress now and remembers the highest count seen. */
public final class ConcurrencyGauge {

    private final AtomicInteger current = new AtomicInteger();

    private final AtomicInteger max = new AtomicInteger();

    public void enter() {
        int now = this.current.incrementAndGet();
        this.max.accumulateAndGet(now, Math::max);
    }

    public void leave() {
        this.current.decrementAndGet();
    }

    public int current() {
        return this.current.get();
    }

    public int max() {
        return this.max.get();
    }

    public void reset() {
        this.max.set(this.current.get());
    }
}
