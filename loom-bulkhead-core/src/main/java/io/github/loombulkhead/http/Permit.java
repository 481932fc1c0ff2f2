package io.github.loombulkhead.http;

import java.util.concurrent.atomic.AtomicBoolean;

import io.github.loombulkhead.Bulkhead;

/** A permit held for one HTTP exchange; {@link #release()} gives it back exactly once. */
final class Permit {

    private final Bulkhead bulkhead;

    private final long start = System.nanoTime();

    private final AtomicBoolean released = new AtomicBoolean();

    Permit(Bulkhead bulkhead) {
        this.bulkhead = bulkhead;
    }

    void release() {
        if (this.released.compareAndSet(false, true)) {
            this.bulkhead.onComplete(System.nanoTime() - this.start);
        }
    }
}
