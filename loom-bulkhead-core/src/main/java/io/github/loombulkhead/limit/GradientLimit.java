package io.github.loombulkhead.limit;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Latency gradient ({@code gradient}): compares the mean RTT of each window of calls with the no-load RTT and, when
 * the callee queues, falls to the limit Little's law gives for no queue. See {@code docs/adaptive-limits.md}.
 *
 * <ul>
 * <li><b>Window</b>: at least {@code windowSamples} calls finishing over at least one no-load RTT; each RTT counts
 * with at most four no-load RTTs. Calls that started before the last decrease describe the old limit and are left out.
 * <li><b>No-load RTT</b>: while starting, the lowest window mean; afterwards the median of the last five drain windows
 * (the second window after each latency decrease, measured while the callee's queue is empty), so neither a lucky fast
 * call nor a long overload moves it; a window mean below 0.8 of it (a faster callee) replaces it at once; two drain
 * windows in a row as slow as the overload with far fewer calls in flight (a slower callee) replace it too.
 * <li><b>Queueing</b> (window mean above {@code rttTolerance} × no-load RTT): knee = mean in-flight × no-load RTT /
 * window RTT; the limit falls to 97 % of the knee and holds there until the drain window was measured.
 * <li><b>Drops</b> beyond {@code dropTolerance} of a round (one limit's worth of calls): the limit × {@code dropBackoff};
 * the first drop decrease of an overload may fall further, to in-flight × no-load RTT / drop RTT, never below half;
 * while starting, half.
 * <li><b>Collapse</b>: when at least half a limit's worth of calls finished since the last decrease and more than three
 * of them failed per success, the callee's queue holds calls whose callers gave up and every new call waits behind
 * them: the limit falls to a quarter at once. Calls that started before the last decrease count here, once.
 * <li><b>Growth</b>, paced per call that started with at least half the limit in use and did not queue: doubling per
 * RTT while starting; 50 % per RTT back up to the knee; {@code increaseRatio} per RTT above it; once past the limit of
 * the last overload without queueing, doubling its step per window up to 50 % per RTT. The limit never grows beyond
 * 1.3 × the most calls in flight that a call started with and finished without queueing.
 * </ul>
 * Estimates: {@code noLoadRttNanos}, {@code rttNanos} (the latest window mean), {@code knee} (0 before the first
 * overload).
 */
final class GradientLimit implements LimitAlgorithm {

    // STARTING -> (first queueing or drop) -> STEADY; in STEADY a latency decrease holds growth for two windows.

    private static final double STARTUP_GROWTH = 1.0;

    private static final double RETURN_GROWTH = 0.5;

    private static final double MAX_PROBE_GROWTH = 0.5;

    private static final double HEADROOM = 1.3;

    private static final double DRAIN_MARGIN = 0.03;

    private static final int DRAIN_WINDOWS = 5;

    private static final double FASTER = 0.8;

    private static final double FLAT = 0.8;

    private static final int RTT_CAP = 4;

    private static final double COLLAPSE_BACKOFF = 0.25;

    /** A collapse: more than this many drops per success since the last decrease. */
    private static final int COLLAPSE_FAILURES = 3;

    private final AdaptiveLimitConfig config;

    private final double tolerance;

    private final double quietRatio;

    private final ReentrantLock lock = new ReentrantLock();

    private final DoubleAdder pendingGrowth = new DoubleAdder();

    private final AtomicLong pendingDropEnd = new AtomicLong(Long.MIN_VALUE);

    private final AtomicLong pendingDropKnee = new AtomicLong(Double.doubleToLongBits(Double.MAX_VALUE));

    private final AtomicInteger maxQuietInflight = new AtomicInteger();

    private final DropCounter drops;

    /** Calls that finished since the last decrease, and COLLAPSE_FAILURES × their successes minus their drops. */
    private final AtomicInteger sinceDecrease = new AtomicInteger();

    private final AtomicInteger balanceSinceDecrease = new AtomicInteger();

    private volatile SampleWindow window;

    private volatile long lastDecreaseNanos = Long.MIN_VALUE;

    private volatile int published;

    private volatile long noLoadRtt;

    private volatile long windowRtt;

    private volatile boolean startup = true;

    private volatile double growthPerCall = STARTUP_GROWTH;

    // Guarded by lock.
    private double limit;

    private double knee = Double.MAX_VALUE;

    private double peak = Double.MAX_VALUE;

    private int overloadWindows;

    private boolean droppedInOverload;

    /** Whether the last decrease was for a collapse: the calls sent before it are known to fail. */
    private volatile boolean collapsed;

    private int probes;

    private int drainCountdown;

    private final long[] drained = new long[DRAIN_WINDOWS];

    private int drainedCount;

    private int flatDrains;

    private long congestedRtt;

    private double congestedInflight;

    GradientLimit(AdaptiveLimitConfig config) {
        this.config = config;
        this.tolerance = config.getRttTolerance();
        this.quietRatio = 1 + (this.tolerance - 1) / 2;
        this.limit = config.getInitialLimit();
        this.published = config.getInitialLimit();
        this.drops = new DropCounter(config.getDropTolerance());
        this.window = newWindow();
    }

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
        if (outcome == Outcome.IGNORED) {
            return this.published;
        }
        this.sinceDecrease.incrementAndGet();
        this.balanceSinceDecrease.addAndGet((outcome == Outcome.DROPPED) ? -1 : COLLAPSE_FAILURES);
        if (startNanos < this.lastDecreaseNanos) {
            if (!this.collapsed && isCollapse()) {
                // Calls sent before the decrease fail far more often than they succeed: the callee collapsed.
                this.pendingDropEnd.accumulateAndGet(startNanos + rttNanos, Math::max);
                drain();
            }
            return this.published;
        }
        long rtt = Math.max(1, rttNanos);
        long noLoad = this.noLoadRtt;
        int current = this.published;
        int round = Math.max(this.config.getWindowSamples(), current);
        if (outcome == Outcome.DROPPED) {
            if (noLoad > 0 && rtt > noLoad) {
                // A call that failed after waiting longer than the no-load RTT queued too.
                this.window.add(startNanos, rtt, inflight);
            }
            if (this.drops.count(true, round)) {
                if (noLoad > 0 && rtt > noLoad) {
                    double knee = (double) inflight * noLoad / rtt;
                    this.pendingDropKnee.accumulateAndGet(Double.doubleToLongBits(knee), Math::min);
                }
                this.pendingDropEnd.accumulateAndGet(startNanos + rtt, Math::max);
            }
        }
        else {
            this.drops.count(false, round);
            this.window.add(startNanos, rtt, inflight);
            if (noLoad == 0 || rtt <= noLoad * this.quietRatio) {
                this.maxQuietInflight.accumulateAndGet(inflight, Math::max);
            }
            double growth = this.growthPerCall;
            double slow = this.startup ? this.quietRatio : this.tolerance;
            if (growth > 0 && inflight * 2 >= current && (noLoad == 0 || rtt <= noLoad * slow)) {
                this.pendingGrowth.add(growth);
            }
        }
        drain();
        return this.published;
    }

    @Override
    public Map<String, Number> getEstimates() {
        double knee = this.knee;
        return Map.of("noLoadRttNanos", this.noLoadRtt, "rttNanos", this.windowRtt, "knee",
                (knee == Double.MAX_VALUE) ? 0 : (int) knee);
    }

    /**
     * Whether at least half a limit's worth of calls finished since the last decrease and more than
     * {@code COLLAPSE_FAILURES} of them failed per success.
     */
    private boolean isCollapse() {
        return this.balanceSinceDecrease.get() < 0
                && this.sinceDecrease.get() >= Math.max(this.config.getWindowSamples(), this.published / 2);
    }

    /** Lets one thread at a time turn what the samples left behind into a new limit; the others go on. */
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
        return this.pendingDropEnd.get() > this.lastDecreaseNanos || this.pendingGrowth.sum() >= 1
                || isComplete(this.window);
    }

    /** Guarded by lock. */
    private void work() {
        long dropEnd = this.pendingDropEnd.get();
        if (dropEnd > this.lastDecreaseNanos) {
            double dropKnee = Double.longBitsToDouble(
                    this.pendingDropKnee.getAndSet(Double.doubleToLongBits(Double.MAX_VALUE)));
            double target = this.limit * this.config.getDropBackoff();
            if (this.startup) {
                // Dropping before the first sign of queueing: the start was far above the callee's capacity.
                target = this.limit * 0.5;
            }
            else if (!this.droppedInOverload) {
                target = Math.max(this.limit * 0.5, Math.min(target, dropKnee));
            }
            this.knee = Math.min(this.knee, Math.max(this.config.getMinLimit(), Math.min(this.limit, target)));
            boolean collapse = false;
            if (isCollapse()) {
                // More calls failed than succeeded: the callee's queue holds calls whose callers gave up, and every
                // new call waits behind them. Send few until it drained, then return to the knee.
                target = Math.min(target, this.limit * COLLAPSE_BACKOFF);
                collapse = true;
            }
            decrease(target, dropEnd);
            this.collapsed = collapse;
            this.droppedInOverload = true;
            return;
        }
        double growth = this.pendingGrowth.sumThenReset();
        if (growth > 0) {
            grow(growth);
        }
        SampleWindow closed = this.window;
        if (isComplete(closed)) {
            this.window = newWindow();
            evaluate(closed);
        }
    }

    /** Guarded by lock. */
    private void evaluate(SampleWindow closed) {
        long mean = closed.meanRtt();
        // The first window after a latency decrease mixes calls that met the old queue: it decides nothing.
        boolean settling = this.drainCountdown == 2;
        long noLoad = updateNoLoadRtt(mean, closed.meanInflight());
        this.windowRtt = mean;
        if (settling) {
            return;
        }
        double ratio = (double) mean / noLoad;
        if (ratio > this.tolerance) {
            this.congestedRtt = mean;
            this.congestedInflight = closed.meanInflight();
            this.knee = closed.meanInflight() * noLoad / mean;
            decrease(this.knee * (1 - DRAIN_MARGIN), closed.latestEnd());
            this.drainCountdown = 2;
            this.growthPerCall = 0;
            return;
        }
        this.overloadWindows = 0;
        this.droppedInOverload = false;
        if (this.startup && ratio > this.quietRatio) {
            this.startup = false;
            this.peak = this.limit;
        }
        if (this.startup) {
            this.growthPerCall = STARTUP_GROWTH;
        }
        else if (this.limit < returnTarget()) {
            this.probes = 0;
            this.growthPerCall = RETURN_GROWTH;
        }
        else if (this.limit >= this.peak && ratio <= this.quietRatio) {
            this.probes++;
            this.growthPerCall = Math.min(MAX_PROBE_GROWTH,
                    this.config.getIncreaseRatio() * (1 << Math.min(20, this.probes)));
        }
        else {
            this.probes = 0;
            this.growthPerCall = steadyGrowth();
        }
    }

    /** Guarded by lock. Where growth slows down: the knee, or half the limit the last overload began at. */
    private double returnTarget() {
        return (this.peak == Double.MAX_VALUE) ? this.knee : Math.max(this.knee, this.peak / 2);
    }

    /** Guarded by lock. {@code increaseRatio} of the limit per RTT. */
    private double steadyGrowth() {
        return this.config.getIncreaseRatio();
    }

    /**
     * Guarded by lock. While starting: the lowest window mean. Afterwards: the median of the last drain windows (the
     * second window after a latency decrease), or at once a window clearly faster than the estimate. When two drain
     * windows in a row stayed slow although far fewer calls were in flight, the RTT does not come from queueing but
     * from a slower callee: it becomes the new no-load RTT and the limit may return to where the overload began.
     */
    private long updateNoLoadRtt(long mean, double meanInflight) {
        long noLoad = this.noLoadRtt;
        if (noLoad == 0 || (this.startup && mean < noLoad) || mean < noLoad * FASTER) {
            noLoad = mean;
        }
        else if (this.drainCountdown == 1) {
            boolean flat = mean > noLoad * this.tolerance && mean >= FLAT * this.congestedRtt
                    && meanInflight <= FLAT * this.congestedInflight;
            this.flatDrains = flat ? this.flatDrains + 1 : 0;
            if (this.flatDrains >= 2) {
                this.drainedCount = 0;
                this.flatDrains = 0;
                this.knee = this.peak;
            }
            this.drained[this.drainedCount++ % DRAIN_WINDOWS] = mean;
            long[] sorted = Arrays.copyOf(this.drained, Math.min(this.drainedCount, DRAIN_WINDOWS));
            Arrays.sort(sorted);
            noLoad = sorted[(sorted.length - 1) / 2];
        }
        this.drainCountdown = Math.max(0, this.drainCountdown - 1);
        this.noLoadRtt = noLoad;
        return noLoad;
    }

    /** Guarded by lock. */
    private void grow(double growth) {
        double cap = Math.max(this.limit, HEADROOM * this.maxQuietInflight.get() + 1);
        double target = returnTarget();
        if (this.limit < target) {
            cap = Math.min(cap, target);
        }
        this.limit = Math.min(this.config.getMaxLimit(), Math.min(cap, this.limit + growth));
        if (this.limit >= target && this.growthPerCall == RETURN_GROWTH) {
            this.growthPerCall = steadyGrowth();
        }
        publish();
    }

    /** Guarded by lock. */
    private void decrease(double target, long now) {
        if (this.overloadWindows++ == 0) {
            this.peak = this.limit;
        }
        this.limit = Math.max(this.config.getMinLimit(), Math.min(this.limit, target));
        this.lastDecreaseNanos = now;
        this.startup = false;
        this.probes = 0;
        this.growthPerCall = (this.limit < returnTarget()) ? RETURN_GROWTH : steadyGrowth();
        this.pendingGrowth.reset();
        this.maxQuietInflight.set(0);
        this.drops.reset();
        this.sinceDecrease.set(0);
        this.balanceSinceDecrease.set(0);
        this.collapsed = false;
        publish();
        this.window = newWindow();
    }

    private void publish() {
        this.published = (int) Math.max(this.config.getMinLimit(), Math.min(this.config.getMaxLimit(), this.limit));
    }

    private SampleWindow newWindow() {
        long noLoad = this.noLoadRtt;
        return new SampleWindow((noLoad > 0) ? noLoad * RTT_CAP : Long.MAX_VALUE);
    }

    private boolean isComplete(SampleWindow candidate) {
        long span = this.noLoadRtt;
        if (span == 0) {
            span = (candidate.count() > 0) ? candidate.meanRtt() : Long.MAX_VALUE;
        }
        return candidate.isComplete(this.config.getWindowSamples(), span);
    }

    @Override
    public String toString() {
        return "GradientLimit[limit=" + this.published + ", noLoadRtt=" + this.noLoadRtt + "ns]";
    }
}
