package io.github.loombulkhead.redis;

/**
 * Where a cluster bulkhead's permits come from now: {@code CLUSTER -> FALLBACK -> CLUSTER}, as Redis goes away and
 * comes back.
 */
public enum ClusterMode {

    /** Permits are leases held in Redis. */
    CLUSTER,

    /** Redis cannot be reached: the configured {@link ClusterFallback} applies. */
    FALLBACK;

    /** 0 for {@code CLUSTER}, 1 for {@code FALLBACK}, for a gauge. */
    public int gaugeValue() {
        return ordinal();
    }
}
