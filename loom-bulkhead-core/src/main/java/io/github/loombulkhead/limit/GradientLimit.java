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

    /** The most calls in flight that a call started with and still finished without queueing. */
    private final java.util.concurrent.atomic.AtomicInteger maxFastInflight = new java.util.concurrent.atomic.AtomicInteger();

    static final double HEADROOM = Double.parseDouble(System.getProperty("loom.headroom", "1.5"));

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
    private static final double STARTUP_GROWTH = Double.parseDouble(System.getProperty("loom.startup", "1.0"));

    // Guarded by lock.
    private double limit;

    private boolean startup = true;

    private int probes;

    private int congestedStreak;

    private double congestionLimit = Double.MAX_VALUE;

    /** The latest estimate of the limit at which the callee starts to queue. */
    private double knee = Double.MAX_VALUE;

    private boolean droppedInStreak;

    static final double RETURN_GROWTH = Double.parseDouble(System.getProperty("loom.return", "0.5"));

    GradientLimit(AdaptiveLimitConfig config) {
        this.config = config;
        this.quietRatio = 1 + (config.getRttTolerance() - 1) / 2;
        this.limit = config.getInitialLimit();
        this.published = config.getInitialLimit();
        this.drops = new DropCounter(DROP_TOLERANCE);
        this.window = newWindow();
    }

    static final double DROP_TOLERANCE = Double.parseDouble(System.getProperty("loom.dropTolerance", "0.05"));

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
            if (this.noLoadRtt > 0 && rtt > this.noLoadRtt) {
                // A call that waited longer than the no-load RTT before it failed is queueing evidence too.
                this.window.add(startNanos, rtt, inflight);
            }
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
            if (base == 0 || rtt <= base * this.quietRatio) {
                if (DEBUG && inflight > this.maxFastInflight.get() && inflight > 150) System.out.printf("    fast I=%d start=%.4f rtt=%.1f%n", inflight, startNanos/1e9, rtt/1e6);
                this.maxFastInflight.accumulateAndGet(inflight, Math::max);
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
            double target = this.limit * this.config.getDropBackoff();
            if (!this.droppedInStreak) {
                target = Math.max(this.limit * 0.5, Math.min(target, knee));
            }
            if (DEBUG) System.out.printf("t=%.3f DROP rate %.2f knee %.1f%n", dropEnd / 1e9, this.drops.dropRate(), knee);
            this.knee = Math.min(this.knee, Math.max(this.config.getMinLimit(), Math.min(this.limit, target)));
            decrease(target, dropEnd);
            this.droppedInStreak = true;
            return;
        }
        double growth = this.pendingGrowth.sumThenReset();
        if (growth > 0) {
            double cap = Math.max(this.limit, HEADROOM * this.maxFastInflight.get());
            if (this.limit < this.knee) {
                cap = Math.min(cap, this.knee);
                if (this.limit + growth >= this.knee) {
                    this.growthPerSample = this.config.getIncreaseRatio();
                }
            }
            this.limit = Math.min(this.config.getMaxLimit(), Math.min(cap, this.limit + growth));
            publish();
        }
        SampleWindow closed = this.window;
        if (!windowComplete(closed)) {
            return;
        }
        this.window = newWindow();
        long median = MEAN ? closed.meanRtt() : closed.medianRtt();
        long now = closed.latestEnd();
        long base = updateNoLoadRtt(median);
        this.windowRtt = median;
        double ratio = (double) median / base;
        if (DEBUG) System.out.printf("t=%.3f median=%.1f base=%.1f ratio=%.2f meanI=%.1f n=%d limit=%.1f growth=%.3f%n", now/1e9, median/1e6, base/1e6, ratio, closed.meanInflight(), closed.count(), this.limit, this.growthPerSample);
        if (ratio > this.config.getRttTolerance()) {
            double knee = closed.meanInflight() * base / median;
            this.knee = knee;
            decrease(knee * (1 - DRAIN_MARGIN), now);
            this.drainCountdown = DRAIN_WINDOW;
            this.growthPerSample = 0;
            return;
        }
        this.congestedStreak = 0;
        this.droppedInStreak = false;
        if (this.drainCountdown > 0) {
            return;
        }
        if (this.startup && ratio > this.quietRatio) {
            this.startup = false;
            this.congestionLimit = this.limit;
        }
        if (this.startup) {
            this.growthPerSample = STARTUP_GROWTH;
        }
        else if (this.limit < this.knee) {
            this.probes = 0;
            this.growthPerSample = RETURN_GROWTH;
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

    /**
     * Guarded by lock. The no-load RTT: while starting, the lowest window mean; afterwards the median of the last
     * windows that followed a latency decrease (which drains the callee's queue), or a clearly lower window mean.
     */
    private long updateNoLoadRtt(long mean) {
        long base = this.noLoadRtt;
        if (base == 0 || (this.startup && mean < base) || mean < base * FASTER) {
            base = mean;
        }
        else if (this.drainCountdown == 1) {
            this.drained[this.drainedCount++ % this.drained.length] = mean;
            long[] sorted = java.util.Arrays.copyOf(this.drained, Math.min(this.drainedCount, this.drained.length));
            java.util.Arrays.sort(sorted);
            base = sorted[(sorted.length - 1) / 2];
        }
        this.drainCountdown = Math.max(0, this.drainCountdown - 1);
        this.noLoadRtt = base;
        return base;
    }

    static final double DRAIN_MARGIN = Double.parseDouble(System.getProperty("loom.drain", "0.05"));

    static final double FASTER = 0.8;

    private final long[] drained = new long[Integer.getInteger("loom.drained", 5)];

    private int drainedCount;

    private int drainCountdown;

    static final int DRAIN_WINDOW = Integer.getInteger("loom.drainWindow", 2);

    private boolean windowComplete(SampleWindow candidate) {
        long span = this.noLoadRtt;
        if (span == 0) {
            long median = candidate.meanRtt();
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
        this.growthPerSample = (this.limit < this.knee) ? RETURN_GROWTH : this.config.getIncreaseRatio();
        this.pendingGrowth.reset();
        this.maxFastInflight.set(0);
        publish();
        this.drops.reset();
        this.window = newWindow();
    }

    private void publish() {
        this.published = (int) Math.max(this.config.getMinLimit(), Math.min(this.config.getMaxLimit(), this.limit));
    }

    static final boolean MEAN = !Boolean.getBoolean("loom.median");

    private SampleWindow newWindow() {
        long base = this.noLoadRtt;
        return new SampleWindow(WINDOW_CAPACITY, this.published, Long.MAX_VALUE, Long.MAX_VALUE)
            .clip((base > 0) ? base * 4 : Long.MAX_VALUE);
    }

    @Override
    public String toString() {
        return "GradientLimit[limit=" + this.published + ", noLoadRtt=" + this.noLoadRtt + "ns]";
    }
}
