package io.github.loombulkhead;

import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The listeners of one bulkhead. A listener that throws is logged and skipped, so it can never leak a
 * permit or lose a task: the bulkhead's own bookkeeping is done before listeners are called.
 */
final class BulkheadListeners {

    private static final System.Logger logger = System.getLogger(Bulkhead.class.getName());

    private final CopyOnWriteArrayList<BulkheadListener> listeners = new CopyOnWriteArrayList<>();

    void add(BulkheadListener listener) {
        this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
    }

    void remove(BulkheadListener listener) {
        this.listeners.remove(listener);
    }

    void permitted(Bulkhead bulkhead, long waitNanos) {
        for (BulkheadListener listener : this.listeners) {
            try {
                listener.onPermitted(bulkhead, waitNanos);
            }
            catch (RuntimeException ex) {
                failed(bulkhead, listener, ex);
            }
        }
    }

    void rejected(Bulkhead bulkhead, RejectionReason reason, long waitNanos) {
        for (BulkheadListener listener : this.listeners) {
            try {
                listener.onRejected(bulkhead, reason, waitNanos);
            }
            catch (RuntimeException ex) {
                failed(bulkhead, listener, ex);
            }
        }
    }

    void completed(Bulkhead bulkhead, long executionNanos) {
        for (BulkheadListener listener : this.listeners) {
            try {
                listener.onCompleted(bulkhead, executionNanos);
            }
            catch (RuntimeException ex) {
                failed(bulkhead, listener, ex);
            }
        }
    }

    void limitChanged(Bulkhead bulkhead, int oldLimit, int newLimit) {
        for (BulkheadListener listener : this.listeners) {
            try {
                listener.onLimitChanged(bulkhead, oldLimit, newLimit);
            }
            catch (RuntimeException ex) {
                failed(bulkhead, listener, ex);
            }
        }
    }

    private static void failed(Bulkhead bulkhead, BulkheadListener listener, RuntimeException ex) {
        logger.log(Level.WARNING, "Bulkhead '" + bulkhead.getName() + "': listener " + listener + " failed", ex);
    }
}
