package io.github.loombulkhead.limit;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Latency gradient ({@code gradient}). Draft; see docs/adaptive-limits.md.
 */
final class GradientLimit implements LimitAlgorithm {

    static final boolean DEBUG = Boolean.getBoolean("loom.debug");

    /** RTTs kept per window for its median; more samples are sampled down to this many. */
    private static final int WINDOW_CAPACITY = 256;

    private final AdaptiveLimitConfig config;

    private final double quietRatio;

    private final ReentrantLock lock = new ReentrantLock();

    private final DoubleAdder pendingGrowth = new DoubleAdder();

    private final AtomicLong pendingDropEnd = new AtomicLong(Long.MIN_VALUE);

    private final AtomicLong pendingDropKnee = new AtomicLong(Double.doubleToLongBits(Double.MAX_VALUE));

    private final DropCounter drops;

    private final MinFilter noLoadRttFilter = new MinFilter();

    private volatile SampleWindow window;

    private volatile long lastDecreaseNanos = Long.MIN_VALUE;

    private volatile int published;

    private volatile long noLoadRtt;

    private volatile long windowRtt;

    /** Permits added per fast call that started with at least half the limit in use. */
    private volatile double growthPerSample = STARTUP_GROWTH;

    /** Growth per sample while starting: the limit doubles per RTT. */
    private static final double STARTUP_GROWTH = 1.0;

    // Guarded by lock.
    private double limit;

    private boolean startup = true;

    private int probes;

    private int congestedStreak;

    private double congestionLimit = Double.MAX_VALUE;

    GradientLimit(AdaptiveLimitConfig config) {
        this.config = config;
        this.quietRatio = 1 + (config.getRttTolerance() - 1) / 2;
        this.limit = config.getInitialLimit();
        this.published = config.getInitialLimit();
        this.drops = new DropCounter(DROP_TOLERANCE);
        this.window = newWindow();
    }

    /** Share of calls that may be dropped before the limit falls: isolated timeouts are noise. */
    static final double DROP_TOLERANCE = 0.05;

    @Override
    public String getName() {
        return AdaptiveLimitConfig.Algorithm.GRADIENT.getName();
    }

    @Override
    public int getLimit() {
        return this.published;
    }

    @Override
    public int onSample(long startNanos, long rttNanos, int inflight, Outcome outcome) {
        if (outcome == Outcome.IGNORED || startNanos < this.lastDecreaseNanos) {
            return this.published;
        }
        long rtt = Math.max(1, rttNanos);
        if (outcome == Outcome.DROPPED) {
            if (this.drops.count(true, Math.max(this.config.getWindowSamples(), this.published))) {
                drop(startNanos + rtt, inflight, rtt);
            }
        }
        else {
            this.drops.count(false, Math.max(this.config.getWindowSamples(), this.published));
            this.window.add(startNanos, rtt, inflight);
            long base = this.noLoadRtt;
            double threshold = this.startup ? this.quietRatio : this.config.getRttTolerance();
            if (inflight * 2 >= this.published && (base == 0 || rtt <= base * threshold)) {
                this.pendingGrowth.add(this.growthPerSample);
            }
        }
        drain();
        return this.published;
    }

    @Override
    public int onInflightAge(long nowNanos, long oldestStartNanos) {
        return this.published;
    }

    @Override
    public Map<String, Number> getEstimates() {
        return Map.of("noLoadRttNanos", this.noLoadRtt, "windowRttNanos", this.windowRtt);
    }

    /** A drop beyond the tolerated rate, ending at {@code end}. */
    private void drop(long end, int inflight, long rttNanos) {
        long base = this.noLoadRtt;
        if (base > 0 && rttNanos > base) {
            double knee = (double) inflight * base / rttNanos;
            this.pendingDropKnee.accumulateAndGet(Double.doubleToLongBits(knee), Math::min);
        }
        this.pendingDropEnd.accumulateAndGet(end, Math::max);
    }

    private void drain() {
        while (hasWork() && this.lock.tryLock()) {
            try {
                work();
            }
            finally {
                this.lock.unlock();
            }
        }
    }

    private boolean hasWork() {
        return this.pendingGrowth.sum() >= 1 || this.pendingDropEnd.get() > this.lastDecreaseNanos
                || windowComplete(this.window);
    }

    /** Guarded by lock. */
    private void work() {
        long dropEnd = this.pendingDropEnd.get();
        if (dropEnd > this.lastDecreaseNanos) {
            double knee = Double.longBitsToDouble(this.pendingDropKnee.getAndSet(Double.doubleToLongBits(Double.MAX_VALUE)));
            double target = Math.max(this.limit * 0.5, Math.min(this.limit * this.config.getDropBackoff(), knee));
            if (DEBUG) System.out.printf("t=%.3f DROP rate %.2f knee %.1f%n", dropEnd / 1e9, this.drops.dropRate(), knee);
            decrease(target, dropEnd);
            return;
        }
        double growth = this.pendingGrowth.sumThenReset();
        if (growth > 0) {
            this.limit = Math.min(this.config.getMaxLimit(), this.limit + growth);
            publish();
        }
        SampleWindow closed = this.window;
        if (!windowComplete(closed)) {
            return;
        }
        this.window = newWindow();
        long median = closed.medianRtt();
        long now = closed.latestEnd();
        long horizon = (this.noLoadRtt > 0) ? this.noLoadRtt * this.config.getNoLoadRttHorizon() : Long.MAX_VALUE / 4;
        long base = this.noLoadRttFilter.update(now, median, horizon);
        this.noLoadRtt = base;
        this.windowRtt = median;
        double ratio = (double) median / base;
        if (DEBUG) System.out.printf("t=%.3f median=%.1f base=%.1f ratio=%.2f meanI=%.1f n=%d limit=%.1f growth=%.3f%n", now/1e9, median/1e6, base/1e6, ratio, closed.meanInflight(), closed.count(), this.limit, this.growthPerSample);
        if (ratio > this.config.getRttTolerance()) {
            decrease(closed.meanInflight() * base / median, now);
            return;
        }
        this.congestedStreak = 0;
        if (this.startup && ratio > this.quietRatio) {
            this.startup = false;
            this.congestionLimit = this.limit;
        }
        if (this.startup) {
            this.growthPerSample = STARTUP_GROWTH;
        }
        else if (this.limit >= this.congestionLimit && ratio <= this.quietRatio) {
            this.probes++;
            this.growthPerSample = Math.min(STARTUP_GROWTH,
                    this.config.getIncreaseRatio() * (1 << Math.min(20, this.probes)));
        }
        else {
            this.probes = 0;
            this.growthPerSample = this.config.getIncreaseRatio();
        }
    }

    private boolean windowComplete(SampleWindow candidate) {
        long span = this.noLoadRtt;
        if (span == 0) {
            long median = candidate.medianRtt();
            span = (median > 0) ? median : Long.MAX_VALUE;
        }
        return candidate.isComplete(this.config.getWindowSamples(), span);
    }

    /** Guarded by lock. */
    private void decrease(double target, long now) {
        if (DEBUG) System.out.printf("t=%.3f DECREASE to %.1f from %.1f%n", now/1e9, target, this.limit);
        if (this.congestedStreak == 0) {
            this.congestionLimit = this.limit;
        }
        this.congestedStreak++;
        this.limit = Math.max(this.config.getMinLimit(), Math.min(this.limit, target));
        this.lastDecreaseNanos = now;
        this.startup = false;
        this.probes = 0;
        this.growthPerSample = this.config.getIncreaseRatio();
        this.pendingGrowth.reset();
        publish();
        this.drops.reset();
        this.window = newWindow();
    }

    private void publish() {
        this.published = (int) Math.max(this.config.getMinLimit(), Math.min(this.config.getMaxLimit(), this.limit));
    }

    private SampleWindow newWindow() {
        return new SampleWindow(WINDOW_CAPACITY, this.published, Long.MAX_VALUE, Long.MAX_VALUE);
    }

    @Override
    public String toString() {
        return "GradientLimit[limit=" + this.published + ", noLoadRtt=" + this.noLoadRtt + "ns]";
    }
}
