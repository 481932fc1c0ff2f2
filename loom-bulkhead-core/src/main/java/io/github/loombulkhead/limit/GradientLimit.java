package io.github.loombulkhead.limit;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
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

    private static final int RTT_CAP = 4;

    private static final double COLLAPSE_BACKOFF = 0.25;

    private final AdaptiveLimitConfig config;

    private final double tolerance;

    private final double quietRatio;

    private final ReentrantLock lock = new ReentrantLock();

    private final DoubleAdder pendingGrowth = new DoubleAdder();

    private final AtomicInteger maxQuietInflight = new AtomicInteger();

    private final DropSignals drops;

    private final NoLoadRtt noLoadRtt;

    private volatile SampleWindow window;

    private volatile long lastDecreaseNanos = Long.MIN_VALUE;

    private volatile int published;

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

    GradientLimit(AdaptiveLimitConfig config) {
        this.config = config;
        this.tolerance = config.getRttTolerance();
        this.quietRatio = 1 + (this.tolerance - 1) / 2;
        this.limit = config.getInitialLimit();
        this.published = config.getInitialLimit();
        this.drops = new DropSignals(config);
        this.noLoadRtt = new NoLoadRtt(this.tolerance);
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
        this.drops.finished(outcome == Outcome.DROPPED);
        if (startNanos < this.lastDecreaseNanos) {
            if (!this.collapsed && this.drops.isCollapse(this.published)) {
                // Calls sent before the decrease fail far more often than they succeed: the callee collapsed.
                this.drops.due(startNanos + rttNanos);
                drain();
            }
            return this.published;
        }
        long rtt = Math.max(1, rttNanos);
        long noLoad = this.noLoadRtt.get();
        int current = this.published;
        int round = Math.max(this.config.getWindowSamples(), current);
        if (outcome == Outcome.DROPPED) {
            if (noLoad > 0 && rtt > noLoad) {
                // A call that failed after waiting longer than the no-load RTT queued too.
                this.window.add(startNanos, rtt, inflight);
            }
            if (this.drops.counted(true, round)) {
                if (noLoad > 0 && rtt > noLoad) {
                    this.drops.due(startNanos + rtt, (double) inflight * noLoad / rtt);
                }
                else {
                    this.drops.due(startNanos + rtt);
                }
            }
        }
        else {
            this.drops.counted(false, round);
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
        return Map.of("noLoadRttNanos", this.noLoadRtt.get(), "rttNanos", this.windowRtt, "knee",
                (knee == Double.MAX_VALUE) ? 0 : (int) knee);
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
        return this.drops.dueEnd() > this.lastDecreaseNanos || this.pendingGrowth.sum() >= 1
                || isComplete(this.window);
    }

    /** Guarded by lock. */
    private void work() {
        long dropEnd = this.drops.dueEnd();
        if (dropEnd > this.lastDecreaseNanos) {
            double dropKnee = this.drops.takeKnee();
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
            if (this.drops.isCollapse(this.published)) {
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
        if (this.noLoadRtt.update(mean, closed.meanInflight(), this.startup, this.drainCountdown == 1)) {
            // A slower callee, not a queue: the limit may return to where the overload began.
            this.knee = this.peak;
        }
        this.drainCountdown = Math.max(0, this.drainCountdown - 1);
        long noLoad = this.noLoadRtt.get();
        this.windowRtt = mean;
        if (settling) {
            return;
        }
        double ratio = (double) mean / noLoad;
        if (ratio > this.tolerance) {
            this.noLoadRtt.congested(mean, closed.meanInflight());
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
        this.collapsed = false;
        publish();
        this.window = newWindow();
    }

    private void publish() {
        this.published = (int) Math.max(this.config.getMinLimit(), Math.min(this.config.getMaxLimit(), this.limit));
    }

    private SampleWindow newWindow() {
        long noLoad = this.noLoadRtt.get();
        return new SampleWindow((noLoad > 0) ? noLoad * RTT_CAP : Long.MAX_VALUE);
    }

    private boolean isComplete(SampleWindow candidate) {
        long span = this.noLoadRtt.get();
        if (span == 0) {
            span = (candidate.count() > 0) ? candidate.meanRtt() : Long.MAX_VALUE;
        }
        return candidate.isComplete(this.config.getWindowSamples(), span);
    }

    @Override
    public String toString() {
        return "GradientLimit[limit=" + this.published + ", noLoadRtt=" + this.noLoadRtt.get() + "ns]";
    }
}
