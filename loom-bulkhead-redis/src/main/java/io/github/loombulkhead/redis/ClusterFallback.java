package io.github.loombulkhead.redis;

/** What a cluster bulkhead does while Redis cannot be reached. */
public enum ClusterFallback {

    /** Each process enforces its share of the limit locally: the limit divided by the processes last seen alive, at least 1. */
    LOCAL,

    /** Every call is rejected with reason {@code cluster-unavailable}. */
    REJECT
}
