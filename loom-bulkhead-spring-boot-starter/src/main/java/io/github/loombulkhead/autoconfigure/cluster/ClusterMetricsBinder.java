package io.github.loombulkhead.autoconfigure.cluster;

import io.github.loombulkhead.redis.ClusterBulkheads;

import org.springframework.beans.factory.SmartInitializingSingleton;

/** Registers the gauges and counters of every cluster bulkhead once the context's singletons exist. */
final class ClusterMetricsBinder implements SmartInitializingSingleton {

    private final ClusterMetrics metrics;

    private final ClusterBulkheads cluster;

    ClusterMetricsBinder(ClusterMetrics metrics, ClusterBulkheads cluster) {
        this.metrics = metrics;
        this.cluster = cluster;
    }

    @Override
    public void afterSingletonsInstantiated() {
        this.metrics.bind(this.cluster);
    }
}
