package io.github.loombulkhead.autoconfigure.metrics;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadListener;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.RejectionReason;
import io.github.loombulkhead.limit.Outcome;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds every bulkhead of a {@link BulkheadRegistry}, including those created later, to Micrometer:
 * gauges {@code loom.bulkhead.limit/active/waiting}, counter {@code loom.bulkhead.calls} and timers
 * {@code loom.bulkhead.wait/execution}, and for adaptive bulkheads gauge {@code loom.bulkhead.adaptive.ceiling},
 * timer {@code loom.bulkhead.adaptive.rtt} and counters {@code loom.bulkhead.adaptive.drops} and
 * {@code loom.bulkhead.adaptive.paused}; all tagged with the bulkhead's {@code name}. {@link #close()} (a bean:
 * when its context closes) stops recording, so a {@code BulkheadRegistry} that outlives the context no longer feeds
 * the closed context's meter registry.
 */
public class BulkheadMetrics implements MeterBinder, AutoCloseable {

    private final BulkheadRegistry bulkheads;

    /** How to undo each {@link #bindTo}. */
    private final List<Runnable> bindings = new CopyOnWriteArrayList<>();

    public BulkheadMetrics(BulkheadRegistry bulkheads) {
        this.bulkheads = bulkheads;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Map<Bulkhead, PerBulkheadMeters> meters = new ConcurrentHashMap<>();
        BulkheadRegistry.Registration created = this.bulkheads.forEachBulkhead((bulkhead) -> meters
            .computeIfAbsent(bulkhead, (key) -> new PerBulkheadMeters(key, registry)));
        MetricsListener listener = new MetricsListener(meters, registry);
        this.bulkheads.addListener(listener);
        this.bindings.add(() -> {
            created.close();
            this.bulkheads.removeListener(listener);
        });
    }

    /** Stops binding new bulkheads and recording events, for every registry bound so far. */
    @Override
    public void close() {
        for (Runnable binding : this.bindings) {
            this.bindings.remove(binding);
            binding.run();
        }
    }

    /** Records events; a bulkhead's meters are created on its first event if not bound yet. */
    private record MetricsListener(Map<Bulkhead, PerBulkheadMeters> meters, MeterRegistry registry)
            implements BulkheadListener {

        @Override
        public void onPermitted(Bulkhead bulkhead, long waitNanos) {
            metersOf(bulkhead).permitted(waitNanos);
        }

        @Override
        public void onRejected(Bulkhead bulkhead, RejectionReason reason, long waitNanos) {
            metersOf(bulkhead).rejected(waitNanos);
        }

        @Override
        public void onCompleted(Bulkhead bulkhead, long executionNanos) {
            metersOf(bulkhead).completed(executionNanos);
        }

        @Override
        public void onSample(Bulkhead bulkhead, long rttNanos, Outcome outcome) {
            metersOf(bulkhead).sampled(rttNanos, outcome);
        }

        @Override
        public void onPausedSample(Bulkhead bulkhead, long rttNanos, long pausedNanos) {
            metersOf(bulkhead).pausedSample();
        }

        private PerBulkheadMeters metersOf(Bulkhead bulkhead) {
            PerBulkheadMeters existing = this.meters.get(bulkhead);
            return (existing != null) ? existing
                    : this.meters.computeIfAbsent(bulkhead, (key) -> new PerBulkheadMeters(key, this.registry));
        }
    }
}
