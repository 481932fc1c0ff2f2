package io.github.loombulkhead;

import java.util.concurrent.locks.LockSupport;

/** A thread parked in {@link Bulkhead#acquirePermission()} until a permit or a rejection arrives. */
final class ParkedWaiter extends Bulkhead.Waiter {

    private final Bulkhead bulkhead;

    private final Thread thread;

    private volatile boolean granted;

    private volatile BulkheadRejectedException rejection;

    ParkedWaiter(Bulkhead bulkhead, Thread thread) {
        this.bulkhead = bulkhead;
        this.thread = thread;
    }

    @Override
    protected void onPermit(long waitNanos) {
        this.granted = true;
        LockSupport.unpark(this.thread);
    }

    @Override
    protected void onReject(BulkheadRejectedException rejection) {
        this.rejection = rejection;
        LockSupport.unpark(this.thread);
    }

    void await() {
        for (;;) {
            if (this.granted) {
                return;
            }
            if (this.rejection != null) {
                throw this.rejection;
            }
            boolean interrupted = Thread.interrupted();
            // Read the max wait on every wake-up: changeMaxWaitDuration applies to callers already waiting.
            long remaining = this.enqueuedAt + this.bulkhead.getConfig().maxWaitNanos() - System.nanoTime();
            if (interrupted || remaining <= 0) {
                giveUp(interrupted);
                return;
            }
            LockSupport.parkNanos(this.bulkhead, remaining);
        }
    }

    /** Leaves the queue unless a permit or a rejection arrived first; keeps a granted permit. */
    private void giveUp(boolean interrupted) {
        boolean withdrawn = this.bulkhead.withdraw(this);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        long waited = System.nanoTime() - this.enqueuedAt;
        if (withdrawn) {
            throw interrupted ? this.bulkhead.rejection(RejectionReason.INTERRUPTED, waited, "interrupted while waiting")
                    : this.bulkhead.rejection(RejectionReason.WAIT_TIMED_OUT, waited, "waited " + waited / 1_000_000
                            + " ms, max wait " + this.bulkhead.getConfig().getMaxWaitDuration());
        }
        // Granted or rejected concurrently: the callback has run or is about to.
        while (!this.granted && this.rejection == null) {
            Thread.yield();
        }
        if (this.rejection != null) {
            throw this.rejection;
        }
    }
}
