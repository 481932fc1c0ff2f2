package io.github.loombulkhead.benchmarks.adaptive;

import java.time.Duration;
import java.util.List;

/**
 * One run of the callee model: Poisson arrivals at {@code offeredLoad} × the starting capacity (calls per second
 * the callee completes at full use), the callee's workers changing as {@code capacitySteps} say, for
 * {@code duration}. The reported phase is {@code [phaseStart, duration)}: the limit's settling time is measured
 * from its start, goodput, latency, spread and drift from {@code measureFrom} on.
 */
record Scenario(String name, double offeredLoad, int burst, int workers, List<CapacityStep> capacitySteps,
        Duration duration, Duration phaseStart, Duration measureFrom, Duration reportUntil) {

    /** Poisson arrivals at {@code offeredLoad} × capacity. */
    Scenario(String name, double offeredLoad, int workers, List<CapacityStep> capacitySteps, Duration duration,
            Duration phaseStart, Duration measureFrom, Duration reportUntil) {
        this(name, offeredLoad, 0, workers, capacitySteps, duration, phaseStart, measureFrom, reportUntil);
    }

    /** {@code calls} calls arriving at once, nothing after. */
    static Scenario burst(int calls, int workers, Duration duration) {
        return new Scenario(calls + " calls at once", 0, calls, workers, List.of(), duration, Duration.ZERO,
                Duration.ZERO, duration);
    }

    /** From {@code at} on, the callee runs {@code workers} calls at once. */
    record CapacityStep(Duration at, int workers) {
    }

    /** Workers at {@code nanos} since the start. */
    int workersAt(long nanos) {
        int current = this.workers;
        for (CapacityStep step : this.capacitySteps) {
            if (nanos >= step.at().toNanos()) {
                current = step.workers();
            }
        }
        return current;
    }

    /** Workers during the reported phase (its end). */
    int phaseWorkers() {
        return workersAt(this.reportUntil.toNanos() - 1);
    }
}
