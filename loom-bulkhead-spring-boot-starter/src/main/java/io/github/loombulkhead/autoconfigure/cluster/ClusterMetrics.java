package io.github.loombulkhead.autoconfigure.cluster;

import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.redis.ClusterBulkhead;
import io.github.loombulkhead.redis.ClusterBulkheads;
import io.github.loombulkhead.redis.ClusterListener;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Meters of every cluster bulkhead, tagged with its {@code name}: gauges {@code loom.bulkhead.cluster.permits.held}
 * (leased by this process), {@code loom.bulkhead.cluster.in.flight} (held by all processes at the last sync; -1
 * before the first successful one), {@code loom.bulkhead.cluster.limit}, {@code loom.bulkhead.cluster.processes} and {@code loom.bulkhead.cluster.fallback}
 * (1 while Redis is away), counters {@code loom.bulkhead.cluster.renewals} and {@code loom.bulkhead.cluster.errors}, and
 * timer {@code loom.bulkhead.cluster.round.trip} (one sync with Redis).
 */
final class ClusterMetrics implements ClusterListener {

    private final MeterRegistry registry;

    ClusterMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void bind(ClusterBulkheads cluster) {
        cluster.getAll().forEach(this::bind);
    }

    private void bind(ClusterBulkhead bulkhead) {
        String name = bulkhead.getName();
        Gauge.builder("loom.bulkhead.cluster.permits.held", bulkhead, ClusterBulkhead::getHeldPermits)
            .tag("name", name)
            .description("Permits leased from Redis by this process")
            .register(this.registry);
        Gauge.builder("loom.bulkhead.cluster.in.flight", bulkhead, ClusterBulkhead::getClusterInFlight)
            .tag("name", name)
            .description("Permits held by all processes at this process's last sync")
            .register(this.registry);
        Gauge.builder("loom.bulkhead.cluster.limit", bulkhead, ClusterBulkhead::getLimit)
            .tag("name", name)
            .description("The limit shared by all processes")
            .register(this.registry);
        Gauge.builder("loom.bulkhead.cluster.processes", bulkhead, ClusterBulkhead::getProcessCount)
            .tag("name", name)
            .description("Processes renewing leases for this bulkhead")
            .register(this.registry);
        Gauge.builder("loom.bulkhead.cluster.fallback", bulkhead, (cluster) -> cluster.getMode().gaugeValue())
            .tag("name", name)
            .description("1 while Redis cannot be reached and the fallback applies, 0 otherwise")
            .register(this.registry);
        FunctionCounter.builder("loom.bulkhead.cluster.renewals", bulkhead, ClusterBulkhead::getRenewalCount)
            .tag("name", name)
            .description("Successful syncs with Redis, each renewing every lease of this process")
            .register(this.registry);
        FunctionCounter.builder("loom.bulkhead.cluster.errors", bulkhead, ClusterBulkhead::getErrorCount)
            .tag("name", name)
            .description("Syncs with Redis that failed")
            .register(this.registry);
    }

    @Override
    public void onRoundTrip(ClusterBulkhead cluster, long nanos, RuntimeException error) {
        Timer.builder("loom.bulkhead.cluster.round.trip")
            .tag("name", cluster.getName())
            .tag("outcome", (error != null) ? "error" : "success")
            .description("One sync with Redis: renewal, release and request in one script call")
            .register(this.registry)
            .record(nanos, TimeUnit.NANOSECONDS);
    }
}
