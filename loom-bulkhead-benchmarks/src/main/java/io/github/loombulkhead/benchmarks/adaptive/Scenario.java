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
        return burst(String.format(java.util.Locale.ROOT, "%,d calls at once", calls), calls, workers, List.of(),
                duration);
    }

    /** {@code calls} calls arriving at once, nothing after, the callee's workers changing as {@code steps} say. */
    static Scenario burst(String name, int calls, int workers, List<CapacityStep> steps, Duration duration) {
        return new Scenario(name, 0, calls, workers, steps, duration, Duration.ZERO, Duration.ZERO, duration);
    }

    /**
     * Little's-law bound of a burst: the time the callee needs to serve every call at full use, each taking
     * {@code serviceTime}, its capacity changing as the steps say.
     */
    double burstBoundSeconds(Duration serviceTime) {
        double service = serviceTime.toNanos() / 1e9;
        double left = this.burst;
        double at = 0;
        int current = this.workers;
        for (CapacityStep step : this.capacitySteps) {
            double until = step.at().toNanos() / 1e9;
            double served = (until - at) * current / service;
            if (served >= left) {
                break;
            }
            left -= served;
            at = until;
            current = step.workers();
        }
        return at + left * service / current;
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
