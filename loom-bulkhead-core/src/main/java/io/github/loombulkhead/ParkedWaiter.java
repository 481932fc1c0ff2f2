package io.github.loombulkhead;

import java.util.concurrent.locks.LockSupport;

/**
 * A thread parked in {@link Bulkhead#acquirePermit()} until a permit arrives. It times itself
 * out, so a wait timeout is thrown on the caller's own thread with the caller's stack trace.
 */
final class ParkedWaiter extends Waiter {

    private final Bulkhead owner;

    private final Thread thread;

    private volatile boolean granted;

    private volatile BulkheadRejectedException rejection;

    ParkedWaiter(Bulkhead owner, Thread thread) {
        super(false);
        this.owner = owner;
        this.thread = thread;
    }

    /** Queues the calling thread at {@code bulkhead} and parks it until a permit is handed over. */
    static void acquire(Bulkhead bulkhead) {
        ParkedWaiter waiter = new ParkedWaiter(bulkhead, Thread.currentThread());
        if (!bulkhead.acquireOrEnqueue(waiter)) {
            waiter.await();
        }
    }

    @Override
    protected boolean onPermit(long waitNanos) {
        this.granted = true;
        LockSupport.unpark(this.thread);
        return true;
    }

    @Override
    protected void onReject(BulkheadRejectedException rejection) {
        // The queue never times this waiter out; only an external limit rejects it.
        this.rejection = rejection;
        LockSupport.unpark(this.thread);
    }

    @Override
    void maxWaitChanged() {
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
            long remaining = this.enqueuedAt + this.owner.getConfig().maxWaitNanos() - System.nanoTime();
            if (interrupted || remaining <= 0) {
                giveUp(interrupted);
                return;
            }
            LockSupport.parkNanos(this.owner, remaining);
        }
    }

    /** Leaves the queue unless a permit arrived first; keeps a granted permit. */
    private void giveUp(boolean interrupted) {
        boolean withdrawn = this.owner.withdraw(this);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (withdrawn) {
            long waited = System.nanoTime() - this.enqueuedAt;
            throw interrupted ? this.owner.countRejection(RejectionReason.INTERRUPTED, waited, "interrupted while waiting")
                    : this.owner.countRejection(RejectionReason.WAIT_TIMED_OUT, waited, "waited " + waited / 1_000_000
                            + " ms, max wait " + this.owner.getConfig().getMaxWaitDuration());
        }
        // Granted or rejected concurrently: the flag is about to be set.
        while (!this.granted) {
            if (this.rejection != null) {
                throw this.rejection;
            }
            Thread.yield();
        }
    }
}

