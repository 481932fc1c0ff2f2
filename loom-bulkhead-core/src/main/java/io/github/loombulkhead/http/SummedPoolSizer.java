package io.github.loombulkhead.http;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadListener;

/**
 * Grows a one-route pool to the sum of several bulkheads' limits: a client whose every call holds a permit of
 * one of them can have that many calls at once. Tracks each limit as reported, since a larger one is reported
 * before the bulkhead applies it.
 */
final class SummedPoolSizer implements BulkheadListener {

    private final PoolSizer pool;

    private final ReentrantLock lock = new ReentrantLock();

    /** Guarded by lock. */
    private final Map<Bulkhead, Integer> limits = new HashMap<>();

    SummedPoolSizer(PoolSizer pool, Collection<Bulkhead> bulkheads) {
        this.pool = pool;
        bulkheads.forEach((bulkhead) -> this.limits.put(bulkhead, PoolSizer.poolLimit(bulkhead)));
    }

    /** The sum of the limits, saturated at {@code Integer.MAX_VALUE}. */
    static int sum(Collection<Integer> limits) {
        return (int) Math.min(Integer.MAX_VALUE, limits.stream().mapToLong(Integer::longValue).sum());
    }

    @Override
    public void onLimitChanged(Bulkhead bulkhead, int oldLimit, int newLimit) {
        int sum;
        this.lock.lock();
        try {
            this.limits.put(bulkhead, Math.max(newLimit, PoolSizer.poolLimit(bulkhead)));
            sum = sum(this.limits.values());
        }
        finally {
            this.lock.unlock();
        }
        if (!this.pool.grow(sum)) {
            bulkhead.removeListener(this);
        }
    }
}
