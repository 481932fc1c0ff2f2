package io.github.loombulkhead.limit;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the gradient algorithm learns from failed calls, gathered without locks: whether the drops of a round exceed
 * the tolerance (then a decrease is due, with the knee the drop's RTT suggests), and whether the callee collapsed —
 * at least half a limit's worth of calls finished since the last decrease and more than three of them failed per
 * success.
 */
final class DropSignals {

    private static final int COLLAPSE_FAILURES = 3;

    private static final long NO_KNEE = Double.doubleToLongBits(Double.MAX_VALUE);

    private final DropCounter round;

    private final int minSamples;

    private final AtomicInteger finished = new AtomicInteger();

    /** {@code COLLAPSE_FAILURES} × successes − drops since the last decrease. */
    private final AtomicInteger balance = new AtomicInteger();

    private final AtomicLong dueEnd = new AtomicLong(Long.MIN_VALUE);

    private final AtomicLong dueKnee = new AtomicLong(NO_KNEE);

    DropSignals(AdaptiveLimitConfig config) {
        this.round = new DropCounter(config.getDropTolerance());
        this.minSamples = config.getWindowSamples();
    }

    /** Counts a finished call toward a collapse, also one that started before the last decrease. */
    void finished(boolean dropped) {
        this.finished.incrementAndGet();
        this.balance.addAndGet(dropped ? -1 : COLLAPSE_FAILURES);
    }

    boolean isCollapse(int limit) {
        return this.balance.get() < 0 && this.finished.get() >= Math.max(this.minSamples, limit / 2);
    }

    /** Counts a call of the current round and returns whether its drops now exceed the tolerance. */
    boolean counted(boolean dropped, int roundSize) {
        return this.round.count(dropped, roundSize);
    }

    /** A decrease is due for calls that ended at {@code end}. */
    void due(long end) {
        this.dueEnd.accumulateAndGet(end, Math::max);
    }

    /** A decrease is due, to no more than {@code knee} for the first one of an overload. */
    void due(long end, double knee) {
        this.dueKnee.accumulateAndGet(Double.doubleToLongBits(knee), DropSignals::lower);
        due(end);
    }

    /** When the latest call that made a decrease due ended; a decrease is pending while it is after the last one. */
    long dueEnd() {
        return this.dueEnd.get();
    }

    /** The lowest knee of the pending decrease, {@link Double#MAX_VALUE} if none; the next one starts afresh. */
    double takeKnee() {
        return Double.longBitsToDouble(this.dueKnee.getAndSet(NO_KNEE));
    }

    /** Starts counting afresh after a decrease. */
    void reset() {
        this.round.reset();
        this.finished.set(0);
        this.balance.set(0);
    }

    private static long lower(long a, long b) {
        return (Double.longBitsToDouble(a) <= Double.longBitsToDouble(b)) ? a : b;
    }
}
