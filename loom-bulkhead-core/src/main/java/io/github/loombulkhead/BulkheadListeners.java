package io.github.loombulkhead;

import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

import io.github.loombulkhead.limit.Outcome;

/**
 * The listeners of one bulkhead. A listener that throws anything, an {@code Error} included, is
 * logged and skipped, so it can never leak a permit or lose a task: the bulkhead's own bookkeeping
 * is done before listeners are called. Dispatch reads one array and allocates nothing.
 */
final class BulkheadListeners {

    private static final System.Logger logger = System.getLogger(Bulkhead.class.getName());

    private static final BulkheadListener[] NONE = {};

    private final ReentrantLock changes = new ReentrantLock();

    private volatile BulkheadListener[] listeners = NONE;

    void add(BulkheadListener listener) {
        Objects.requireNonNull(listener, "listener must not be null");
        this.changes.lock();
        try {
            BulkheadListener[] current = this.listeners;
            BulkheadListener[] grown = Arrays.copyOf(current, current.length + 1);
            grown[current.length] = listener;
            this.listeners = grown;
        }
        finally {
            this.changes.unlock();
        }
    }

    void remove(BulkheadListener listener) {
        this.changes.lock();
        try {
            BulkheadListener[] current = this.listeners;
            for (int i = 0; i < current.length; i++) {
                if (current[i].equals(listener)) {
                    BulkheadListener[] shrunk = new BulkheadListener[current.length - 1];
                    System.arraycopy(current, 0, shrunk, 0, i);
                    System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
                    this.listeners = shrunk;
                    return;
                }
            }
        }
        finally {
            this.changes.unlock();
        }
    }

    int size() {
        return this.listeners.length;
    }

    void permitted(Bulkhead bulkhead, long waitNanos) {
        for (BulkheadListener listener : this.listeners) {
            try {
                listener.onPermitted(bulkhead, waitNanos);
            }
            catch (Throwable ex) {
                failed(bulkhead, listener, ex);
            }
        }
    }

    void rejected(Bulkhead bulkhead, RejectionReason reason, long waitNanos) {
        for (BulkheadListener listener : this.listeners) {
            try {
                listener.onRejected(bulkhead, reason, waitNanos);
            }
            catch (Throwable ex) {
                failed(bulkhead, listener, ex);
            }
        }
    }

    void completed(Bulkhead bulkhead, long executionNanos) {
        for (BulkheadListener listener : this.listeners) {
            try {
                listener.onCompleted(bulkhead, executionNanos);
            }
            catch (Throwable ex) {
                failed(bulkhead, listener, ex);
            }
        }
    }

    void sampled(Bulkhead bulkhead, long rttNanos, Outcome outcome) {
        for (BulkheadListener listener : this.listeners) {
            try {
                listener.onSample(bulkhead, rttNanos, outcome);
            }
            catch (Throwable ex) {
                failed(bulkhead, listener, ex);
            }
        }
    }

    void pausedSample(Bulkhead bulkhead, long rttNanos, long pausedNanos) {
        for (BulkheadListener listener : this.listeners) {
            try {
                listener.onPausedSample(bulkhead, rttNanos, pausedNanos);
            }
            catch (Throwable ex) {
                failed(bulkhead, listener, ex);
            }
        }
    }

    void limitChanged(Bulkhead bulkhead, int oldLimit, int newLimit) {
        for (BulkheadListener listener : this.listeners) {
            try {
                listener.onLimitChanged(bulkhead, oldLimit, newLimit);
            }
            catch (Throwable ex) {
                failed(bulkhead, listener, ex);
            }
        }
    }

    private static void failed(Bulkhead bulkhead, BulkheadListener listener, Throwable ex) {
        logger.log(Level.WARNING, "Bulkhead '" + bulkhead.getName() + "': listener " + listener + " failed", ex);
    }
}
