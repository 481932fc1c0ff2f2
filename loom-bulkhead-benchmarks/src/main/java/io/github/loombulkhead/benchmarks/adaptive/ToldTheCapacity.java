package io.github.loombulkhead.benchmarks.adaptive;

/**
 * The reference no algorithm can beat: a limit that is told the callee's workers at every tick, so it never sends a
 * call the callee cannot start at once. What it loses shows what the scenario costs by itself; what an algorithm
 * loses beyond it is the price of finding the capacity.
 */
final class ToldTheCapacity implements SimulatedLimit {

    static final String LABEL = "told the capacity (reference)";

    private final Scenario scenario;

    private int limit;

    ToldTheCapacity(Scenario scenario) {
        this.scenario = scenario;
        this.limit = scenario.workers();
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
        this.limit = this.scenario.workersAt(nowNanos);
    }
}
