package io.github.loombulkhead.http;

import java.lang.ref.WeakReference;
import java.util.concurrent.locks.ReentrantLock;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadListener;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;

/**
 * Grows a connection pool with the limits of the bulkheads it serves, so that the pool never becomes
 * a second, hidden limit after a runtime limit increase. Holds the pool weakly, so a bulkhead does not keep it
 * reachable; its client's idle-connection evictor thread does, until the client is closed: a factory that is not a
 * Spring bean must be destroyed, which also takes this listener off the bulkheads.
 */
final class PoolSizer implements BulkheadListener {

    private final WeakReference<PoolingHttpClientConnectionManager> manager;

    private final int routes;

    private final int reservedPerRoute;

    private final int reservedTotal;

    private final ReentrantLock lock = new ReentrantLock();

    private int maxPerRoute;

    /**
     * @param reservedPerRoute connections per route kept beyond the limits for calls that hold no permit
     * @param reservedTotal connections in all kept beyond the limits for calls that hold no permit
     */
    PoolSizer(PoolingHttpClientConnectionManager manager, int maxPerRoute, int routes, int reservedPerRoute,
            int reservedTotal) {
        this.manager = new WeakReference<>(manager);
        this.maxPerRoute = maxPerRoute;
        this.routes = routes;
        this.reservedPerRoute = reservedPerRoute;
        this.reservedTotal = reservedTotal;
    }

    /** The connections a bulkhead's calls can use at most: its ceiling, {@code maxConcurrentCalls}. */
    static int poolLimit(Bulkhead bulkhead) {
        return Math.max(bulkhead.getLimit(), bulkhead.getCeiling());
    }

    /** {@code a + b}, saturated at {@code Integer.MAX_VALUE}. */
    static int plus(int a, int b) {
        return (int) Math.min(Integer.MAX_VALUE, (long) a + b);
    }

    /** {@code maxPerRoute * routes}, saturated at {@code Integer.MAX_VALUE}. */
    static int total(int maxPerRoute, int routes) {
        return (int) Math.min(Integer.MAX_VALUE, (long) maxPerRoute * routes);
    }

    @Override
    public void onLimitChanged(Bulkhead bulkhead, int oldLimit, int newLimit) {
        if (!grow(newLimit)) {
            bulkhead.removeListener(this);
        }
    }

    /** Raises the pool to fit {@code limit} per route; {@code false} once the pool is gone. */
    boolean grow(int limit) {
        PoolingHttpClientConnectionManager pool = this.manager.get();
        if (pool == null) {
            return false;
        }
        this.lock.lock();
        try {
            if (limit > this.maxPerRoute) {
                this.maxPerRoute = limit;
                pool.setMaxTotal(plus(total(limit, this.routes), this.reservedTotal));
                pool.setDefaultMaxPerRoute(plus(limit, this.reservedPerRoute));
            }
        }
        finally {
            this.lock.unlock();
        }
        return true;
    }
}
