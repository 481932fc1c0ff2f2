package io.github.loombulkhead.limit;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Loss based ({@code aimd}): RTTs mean nothing to it, only drops. See {@code docs/adaptive-limits.md}.
 *
 * <ul>
 * <li><b>Decrease</b>: once per round (calls that started before the last decrease are left out, so one overload causes
 * one decrease per RTT, not one per dropped call) whose drops exceed what fails whatever the load ({@link
 * BackgroundDrops}; any drop while nothing does): the limit × {@code backoffRatio}, or × 0.9 (or the {@code
 * backoffRatio}, if higher) when the drop that made it due was refused at once (an RTT under a quarter of the mean
 * successful one: a callee that rejects what is above its capacity, with no queue to drain); half while starting.
 * <li><b>Collapse</b>: when at least half a limit's worth of calls finished since the last decrease and more than three
 * of them failed per success, the limit falls to a quarter at once ({@link CollapseSignal}); calls that started
 * before the last decrease count here, but not those that started before the last collapse.
 * <li><b>Growth</b>, paced per successful call that started with at least half the limit in use: doubling per RTT
 * until the first drop, never beyond 1.3 × the most calls in flight that a successful call started with; afterwards
 * {@code increaseRatio} × the limit it last fell to, in permits, per RTT (additive between two decreases); after a
 * collapse, at a pace that reaches where a plain decrease would have gone within two RTTs.
 * </ul>
 */
final class AimdLimit implements LimitAlgorithm {

    // STARTING -> (first round with a drop) -> STEADY

    private static final double HEADROOM = 1.3;

    /**
     * How far a decrease takes the limit at least when the drop that made it due was refused at once: a callee that
     * rejects what is above its capacity has no queue to drain, and each rejection says the limit was just above it.
     * A {@code backoffRatio} above it applies as configured.
     */
    static final double REFUSED_BACKOFF = 0.9;

    /** Mean RTT of successful calls (each new one weighs a sixteenth); 0 before the first. */
    private final AtomicLong successRtt = new AtomicLong();

    /** Whether the drop that made the pending decrease due was refused at once. */
    private volatile boolean refused;

    private final AdaptiveLimitConfig config;

    private final ReentrantLock lock = new ReentrantLock();

    private final DoubleAdder pendingGrowth = new DoubleAdder();

    private final DueDecrease due = new DueDecrease();

    private final AtomicInteger maxSuccessInflight = new AtomicInteger();

    private final BackgroundDrops background = new BackgroundDrops();

    private final DropCounter drops;

    private final CollapseSignal collapse;

    private volatile long lastDecreaseNanos = NanoTimes.NONE;

    private volatile int published;

    private volatile boolean startup = true;

    /** Permits added per RTT after the first decrease. */
    private volatile double step;

    // Guarded by lock.
    private double limit;

    AimdLimit(AdaptiveLimitConfig config) {
        this.config = config;
        this.limit = config.getInitialLimit();
        this.published = config.getInitialLimit();
        this.collapse = new CollapseSignal(config.getWindowSamples());
        this.drops = new DropCounter(this.background::tolerated);
    }

    @Override
    public String getName() {
        return AdaptiveLimitConfig.Algorithm.AIMD.getName();
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
        this.collapse.finished(outcome == Outcome.DROPPED, startNanos);
        int current = this.published;
        if (NanoTimes.isBefore(startNanos, this.lastDecreaseNanos)) {
            // Sent before the last decrease: whether it failed or not, it tells of the overload, not of the background.
            if (this.collapse.isCollapse(current)) {
                // Calls sent before the decrease fail far more often than they succeed: the callee collapsed.
                this.due.dueNow(startNanos + Math.max(1, rttNanos));
                drain();
            }
            return this.published;
        }
        this.background.finished(outcome == Outcome.DROPPED, inflight);
        if (outcome == Outcome.DROPPED) {
            if (this.drops.count(true, current)) {
                // Refused at once rather than timed out: the callee rejects what is above its capacity, no queue.
                this.refused = Outcome.isRefusedAtOnce(rttNanos, this.successRtt.get());
                this.due.due(startNanos, startNanos + Math.max(1, rttNanos));
            }
        }
        else {
            this.successRtt.accumulateAndGet(Math.max(1, rttNanos), AimdLimit::average);
            this.drops.count(false, current);
            this.maxSuccessInflight.accumulateAndGet(inflight, Math::max);
            if (inflight * 2 >= current) {
                this.pendingGrowth.add(this.startup ? 1.0 : this.step / current);
            }
        }
        drain();
        return this.published;
    }

    /** Lets one thread at a time turn what the samples left behind into a new limit; the others go on. */
    private void drain() {
        while ((this.due.isPending(this.lastDecreaseNanos) || this.pendingGrowth.sum() >= 1)
                && this.lock.tryLock()) {
            try {
                if (this.due.isPending(this.lastDecreaseNanos)) {
                    long dropEnd = this.due.end();
                    boolean collapse = this.collapse.isCollapse(this.published);
                    boolean refused = this.refused;
                    double factor = collapse ? CollapseSignal.BACKOFF
                            : this.startup ? 0.5
                                    : refused ? Math.max(REFUSED_BACKOFF, this.config.getBackoffRatio())
                                            : this.config.getBackoffRatio();
                    double before = this.limit;
                    this.limit = Math.max(this.config.getMinLimit(), this.limit * factor);
                    if (collapse || this.startup) {
                        this.background.overloadUnknown();
                    }
                    else if (refused) {
                        this.background.refusedAbove(this.limit);
                    }
                    else {
                        this.background.overloadedAt(before);
                    }
                    // After a collapse the callee's queue was the trouble, not its capacity: grow back within two RTTs
                    // to where a plain decrease would have gone, at that pace until the next decrease.
                    double back = collapse ? (before * this.config.getBackoffRatio() - this.limit) / 2 : 0;
                    this.step = Math.max(1, Math.max(back, this.config.getIncreaseRatio() * this.limit));
                    this.lastDecreaseNanos = dropEnd;
                    this.startup = false;
                    this.pendingGrowth.reset();
                    this.drops.reset();
                    this.collapse.decreased(collapse, dropEnd);
                }
                else {
                    double grown = this.limit + this.pendingGrowth.sumThenReset();
                    if (this.startup) {
                        grown = Math.min(grown, Math.max(this.limit, HEADROOM * this.maxSuccessInflight.get() + 1));
                    }
                    this.limit = Math.min(this.config.getMaxLimit(), grown);
                }
                this.published = (int) Math.max(this.config.getMinLimit(),
                        Math.min(this.config.getMaxLimit(), this.limit));
            }
            finally {
                this.lock.unlock();
            }
        }
    }

    /**
     * {@code backgroundDropShare}: the share of calls that fail whatever the load, as far as it counts; a round may
     * drop that share of its calls and three standard deviations more before the limit falls.
     */
    @Override
    public Map<String, Number> getEstimates() {
        return Map.of("backgroundDropShare", this.background.rate());
    }

    /** The mean RTT of successful calls with {@code rtt} added at a weight of a sixteenth. */
    private static long average(long current, long rtt) {
        return (current == 0) ? rtt : current + (rtt - current) / 16;
    }

    @Override
    public String toString() {
        return "AimdLimit[limit=" + this.published + "]";
    }
}
