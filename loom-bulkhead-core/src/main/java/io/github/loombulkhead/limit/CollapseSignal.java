package io.github.loombulkhead.limit;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Whether the callee collapsed, counted without locks: at least half a limit's worth of calls finished since the last
 * decrease and more than three of them failed per success. Its queue then holds calls whose callers gave up, every new
 * call waits behind them, and taking a fraction off per round only keeps that queue full. Calls that started before
 * the last decrease count too, unless that decrease was for a collapse: they are then known to fail, and only the
 * calls sent since can show that the callee still collapses.
 */
final class CollapseSignal {

    /** How far a collapse takes the limit at once. */
    static final double BACKOFF = 0.25;

    private static final int FAILURES_PER_SUCCESS = 3;

    private final int minSamples;

    private final AtomicInteger finished = new AtomicInteger();

    /** {@code FAILURES_PER_SUCCESS} × successes − drops since the last decrease. */
    private final AtomicInteger balance = new AtomicInteger();

    private volatile boolean collapsed;

    CollapseSignal(int minSamples) {
        this.minSamples = minSamples;
    }

    /**
     * Counts a finished call; one that started before the last decrease ({@code beforeDecrease}) only if that
     * decrease was not for a collapse.
     */
    void finished(boolean dropped, boolean beforeDecrease) {
        if (beforeDecrease && this.collapsed) {
            return;
        }
        this.finished.incrementAndGet();
        this.balance.addAndGet(dropped ? -1 : FAILURES_PER_SUCCESS);
    }

    /** Whether the calls finished since the last decrease say the callee collapsed. */
    boolean isCollapse(int limit) {
        return this.balance.get() < 0 && this.finished.get() >= Math.max(this.minSamples, limit / 2);
    }

    /**
     * Whether the calls that started before the last decrease make a decrease due: only if they say the callee
     * collapsed and that decrease was not already for a collapse.
     */
    boolean isDueBeforeDecrease(int limit) {
        return !this.collapsed && isCollapse(limit);
    }

    /** Starts counting afresh after a decrease, remembering whether it was for a collapse. */
    void decreased(boolean collapse) {
        this.finished.set(0);
        this.balance.set(0);
        this.collapsed = collapse;
    }
}
