package io.github.loombulkhead.limit;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Whether the callee collapsed, counted without locks: at least half a limit's worth of calls finished since the last
 * decrease and more than three of them failed per success. Its queue then holds calls whose callers gave up, every new
 * call waits behind them, and taking a fraction off per round only keeps that queue full. Calls that started before
 * the last decrease count too, unless they started before the last collapse: they are then known to fail, and only
 * the calls sent since can show that the callee still collapses, whatever decreases came in between.
 */
final class CollapseSignal {

    /** How far a collapse takes the limit at once. */
    static final double BACKOFF = 0.25;

    private static final int FAILURES_PER_SUCCESS = 3;

    private final int minSamples;

    private final AtomicInteger finished = new AtomicInteger();

    /** {@code FAILURES_PER_SUCCESS} × successes − drops since the last decrease. */
    private final AtomicInteger balance = new AtomicInteger();

    /** When the last decrease for a collapse was made; {@link NanoTimes#NONE} before the first. */
    private volatile long collapsedAt = NanoTimes.NONE;

    CollapseSignal(int minSamples) {
        this.minSamples = minSamples;
    }

    /** Counts a call that started at {@code startNanos} and finished, unless it started before the last collapse. */
    void finished(boolean dropped, long startNanos) {
        if (NanoTimes.isBefore(startNanos, this.collapsedAt)) {
            return;
        }
        this.finished.incrementAndGet();
        this.balance.addAndGet(dropped ? -1 : FAILURES_PER_SUCCESS);
    }

    /** Whether the calls counted since the last decrease say the callee collapsed. */
    boolean isCollapse(int limit) {
        return this.balance.get() < 0 && this.finished.get() >= Math.max(this.minSamples, limit / 2);
    }

    /** Starts counting afresh after a decrease made at {@code decreasedAt}, remembering it if it was for a collapse. */
    void decreased(boolean collapse, long decreasedAt) {
        this.finished.set(0);
        this.balance.set(0);
        if (collapse) {
            this.collapsedAt = decreasedAt;
        }
    }
}
