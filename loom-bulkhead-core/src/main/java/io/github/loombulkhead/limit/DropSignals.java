package io.github.loombulkhead.limit;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the gradient algorithm learns from failed calls, gathered without locks: whether the drops of a round exceed
 * the tolerance (then a decrease is due, with the knee the drop's RTT suggests), and whether the callee collapsed
 * ({@link CollapseSignal}).
 */
final class DropSignals {

    private static final long NO_KNEE = Double.doubleToLongBits(Double.MAX_VALUE);

    private final DropCounter round;

    private final int minSamples;

    private final double backoff;

    private final CollapseSignal collapse;

    private final DueDecrease due = new DueDecrease();

    private final AtomicLong dueKnee = new AtomicLong(NO_KNEE);

    DropSignals(AdaptiveLimitConfig config) {
        this.round = new DropCounter(config.getDropTolerance());
        this.minSamples = config.getWindowSamples();
        this.backoff = config.getDropBackoff();
        this.collapse = new CollapseSignal(this.minSamples);
    }

    /** Counts a call that started at {@code startNanos} and finished toward a collapse; see {@link CollapseSignal}. */
    void finished(boolean dropped, long startNanos) {
        this.collapse.finished(dropped, startNanos);
    }

    boolean isCollapse(int limit) {
        return this.collapse.isCollapse(limit);
    }

    /**
     * Takes a call that started before the last decrease and ended at {@code end}: a collapse (told by calls that
     * started after the last one) makes a decrease due. Returns whether it did.
     */
    boolean collapseDue(long end, int limit) {
        if (this.collapse.isCollapse(limit)) {
            this.due.dueNow(end);
            return true;
        }
        return false;
    }

    /** Counts a call of the current round and returns whether its drops now exceed the tolerance. */
    boolean counted(boolean dropped, int roundSize) {
        return this.round.count(dropped, roundSize);
    }

    /**
     * Counts a dropped call of the current round. Once the drops exceed the tolerance a decrease is due, to no more
     * than in-flight × no-load RTT / the drop's RTT if the call waited longer than the no-load RTT (0: unknown).
     */
    void dropped(long startNanos, long rttNanos, int inflight, long noLoadRtt, int roundSize) {
        if (counted(true, roundSize)) {
            if (noLoadRtt > 0 && rttNanos > noLoadRtt) {
                this.dueKnee.accumulateAndGet(Double.doubleToLongBits((double) inflight * noLoadRtt / rttNanos),
                        DropSignals::lower);
            }
            this.due.due(startNanos, startNanos + rttNanos);
        }
    }

    /** Whether the drops made a decrease due since the last one, made at {@code lastDecreaseNanos}. */
    boolean isDue(long lastDecreaseNanos) {
        return this.due.isPending(lastDecreaseNanos);
    }

    /** When the latest call that made a decrease due ended: the time of that decrease. */
    long dueEnd() {
        return this.due.end();
    }

    /**
     * Where the pending decrease takes {@code limit}: × {@code dropBackoff}; the first decrease of an overload may fall
     * further, to the lowest knee the drops suggested, never below half; while starting, half. The next decrease's
     * knee starts afresh.
     */
    double takeTarget(double limit, boolean startup, boolean firstOfOverload) {
        double knee = Double.longBitsToDouble(this.dueKnee.getAndSet(NO_KNEE));
        double target = limit * this.backoff;
        if (startup) {
            // Dropping before the first sign of queueing: the start was far above the callee's capacity.
            return limit * 0.5;
        }
        return firstOfOverload ? Math.max(limit * 0.5, Math.min(target, knee)) : target;
    }

    /**
     * Starts counting afresh after a decrease made at {@code decreasedAt}, remembering it if it was for a collapse. A
     * knee the drops suggested is forgotten too: a latency decrease may come first and leave the drops that suggested
     * it before the decrease, so the next drop decrease, maybe much later, must not fall to it.
     */
    void decreased(boolean collapse, long decreasedAt) {
        this.dueKnee.set(NO_KNEE);
        this.round.reset();
        this.collapse.decreased(collapse, decreasedAt);
    }

    private static long lower(long a, long b) {
        return (Double.longBitsToDouble(a) <= Double.longBitsToDouble(b)) ? a : b;
    }
}
