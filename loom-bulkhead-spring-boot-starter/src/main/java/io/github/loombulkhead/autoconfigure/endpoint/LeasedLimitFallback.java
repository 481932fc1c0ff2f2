package io.github.loombulkhead.autoconfigure.endpoint;

import io.github.loombulkhead.Bulkhead;

/**
 * Tells the {@code bulkheads} endpoint whether a bulkhead whose limit is leased cannot reach its leases now (a cluster
 * bulkhead whose Redis is unreachable): its limit is then its fallback's, and a limit written waits to be stored. The
 * cluster auto-configuration registers one.
 */
@FunctionalInterface
public interface LeasedLimitFallback {

    /** Whether {@code bulkhead}'s limit is its fallback's now, its leases out of reach. */
    boolean isInFallback(Bulkhead bulkhead);
}
