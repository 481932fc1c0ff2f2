package io.github.loombulkhead.benchmarks.adaptive;

import java.time.Duration;

/**
 * The reference no algorithm can beat: a limit that is told the callee's workers at every tick, so it never sends a
 * call the callee cannot start at once. What it loses shows what the scenario costs by itself; what an algorithm
 * loses beyond it is the price of finding the capacity. Told {@code late}, it follows every change of the workers
 * that long after it: no algorithm that learns from the calls it sent hears of a change before the first of them
 * comes back, so what this loses at a capacity step is the cost of any such delay.
 */
final class ToldTheCapacity implements SimulatedLimit {

    static final String LABEL = "told the capacity (reference)";

    /** How late {@link #late} learns of a change: one service time, the earliest a call sent after it comes back. */
    static final Duration LATE = Duration.ofMillis(300);

    static final String LATE_LABEL = "told the capacity " + LATE.toMillis() + " ms late (reference)";

    private final Scenario scenario;

    private final long lateNanos;

    private final long pauseNanos;

    private int limit;

    ToldTheCapacity(Scenario scenario) {
        this(scenario, Duration.ZERO, Duration.ZERO);
    }

    /**
     * Told every change {@code late}; on hearing that the workers dropped, it sends nothing for {@code pause} before
     * it follows the new capacity.
     */
    ToldTheCapacity(Scenario scenario, Duration late, Duration pause) {
        this.scenario = scenario;
        this.lateNanos = late.toNanos();
        this.pauseNanos = pause.toNanos();
        this.limit = scenario.workers();
    }

    /** Told every change {@link #LATE}. */
    static ToldTheCapacity late(Scenario scenario) {
        return new ToldTheCapacity(scenario, LATE, Duration.ZERO);
    }

    @Override
    public int limit() {
        return this.limit;
    }

    @Override
    public void onSample(long startNanos, long rttNanos, int inflight, boolean dropped) {
    }

    @Override
    public void onTick(long nowNanos) {
        int told = this.scenario.workersAt(nowNanos - this.lateNanos);
        boolean pausing = this.pauseNanos > 0
                && told < this.scenario.workersAt(nowNanos - this.lateNanos - this.pauseNanos);
        this.limit = pausing ? 0 : told;
    }
}
