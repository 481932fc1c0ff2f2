package io.github.loombulkhead.redis;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Retries a pub/sub subscription that failed (Redis not up yet) every {@value #RETRY_MILLIS} ms on a virtual thread of
 * its own, until an attempt succeeds; the governors poll meanwhile. Each attempt runs under the messages' lock and
 * says whether it is done (also when the messages closed meanwhile).
 */
final class SubscribeRetry {

    static final long RETRY_MILLIS = 500;

    private final ReentrantLock lock;

    private final BooleanSupplier attempt;

    /** Written under the lock; read by {@link #stop()} without it. */
    private volatile Thread retrying;

    SubscribeRetry(ReentrantLock lock, BooleanSupplier attempt) {
        this.lock = lock;
        this.attempt = attempt;
    }

    /** Guarded by the lock: starts retrying, unless a retry is under way. */
    void start() {
        if (this.retrying == null) {
            this.retrying = Thread.ofVirtual()
                .name("loom-bulkhead-cluster-subscribe")
                .inheritInheritableThreadLocals(false)
                .start(this::retry);
        }
    }

    /**
     * Ends a retry's wait, and an attempt waiting for Redis, so that closing does not wait for it. Needs no lock:
     * called before the lock is taken, an attempt holding it is interrupted too.
     */
    void stop() {
        Thread retry = this.retrying;
        if (retry != null) {
            retry.interrupt();
        }
    }

    private void retry() {
        while (true) {
            try {
                Thread.sleep(RETRY_MILLIS);
            }
            catch (InterruptedException ex) {
                // Stopped: the messages are closing.
                Thread.currentThread().interrupt();
                return;
            }
            this.lock.lock();
            try {
                if (this.attempt.getAsBoolean()) {
                    this.retrying = null;
                    return;
                }
            }
            finally {
                this.lock.unlock();
            }
        }
    }
}
