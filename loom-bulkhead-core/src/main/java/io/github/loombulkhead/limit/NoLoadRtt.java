package io.github.loombulkhead.limit;

import java.util.Arrays;

/**
 * The gradient's estimate of the RTT without a queue. While starting: the lowest window mean. Afterwards: the median
 * of the last five drain windows (the second window after a latency decrease, measured while the callee's queue is
 * empty), or at once a window clearly faster than the estimate. Two drain windows in a row that stayed slow although
 * far fewer calls were in flight do not come from queueing but from a slower callee: they become the estimate.
 * Updated under the algorithm's lock; {@link #get()} from any thread.
 */
final class NoLoadRtt {

    private static final int DRAIN_WINDOWS = 5;

    private static final double FASTER = 0.8;

    private static final double FLAT = 0.8;

    private final double tolerance;

    private final long[] drained = new long[DRAIN_WINDOWS];

    private int drainedCount;

    private int flatDrains;

    private long congestedRtt;

    private double congestedInflight;

    private volatile long value;

    NoLoadRtt(double tolerance) {
        this.tolerance = tolerance;
    }

    /** The estimate in nanoseconds; 0 before the first window. */
    long get() {
        return this.value;
    }

    /**
     * Whether the latest drain window stayed as slow as the last overload although far fewer calls were in flight:
     * one more like it and the callee counts as slower.
     */
    boolean awaitsSecondFlatDrain() {
        return this.flatDrains == 1;
    }

    /** Remembers the window that showed the last overload, to tell a slower callee from a queue later. */
    void congested(long meanRtt, double meanInflight) {
        this.congestedRtt = meanRtt;
        this.congestedInflight = meanInflight;
    }

    /**
     * Takes one window's mean RTT (its calls capped at four no-load RTTs, and uncapped) and in-flight count. Whether
     * a drain window stayed as slow as the overload, and the new estimate of a slower callee, take the uncapped mean:
     * the cap is relative to the estimate the slower callee made obsolete (a callee 6 x slower read as 4 x, and the
     * next window as a queue).
     * @param startup whether the algorithm is still starting
     * @param drainWindow whether this is the second window after a latency decrease
     * @return whether the callee turned slower: the overload's limit is no longer too high
     */
    boolean update(long mean, long uncappedMean, double meanInflight, boolean startup, boolean drainWindow) {
        long current = this.value;
        if (current == 0 || (startup && mean < current) || mean < current * FASTER) {
            this.value = mean;
            return false;
        }
        if (!drainWindow) {
            return false;
        }
        boolean flat = mean > current * this.tolerance && uncappedMean >= FLAT * this.congestedRtt
                && meanInflight <= FLAT * this.congestedInflight;
        this.flatDrains = flat ? this.flatDrains + 1 : 0;
        boolean slower = this.flatDrains >= 2;
        if (slower) {
            this.drainedCount = 0;
            this.flatDrains = 0;
        }
        this.drained[this.drainedCount++ % DRAIN_WINDOWS] = slower ? uncappedMean : mean;
        long[] sorted = Arrays.copyOf(this.drained, Math.min(this.drainedCount, DRAIN_WINDOWS));
        Arrays.sort(sorted);
        this.value = sorted[(sorted.length - 1) / 2];
        return slower;
    }
}
