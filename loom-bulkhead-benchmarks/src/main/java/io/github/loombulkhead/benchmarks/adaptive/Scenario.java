package io.github.loombulkhead.benchmarks.adaptive;

import java.time.Duration;
import java.util.List;
import java.util.TreeSet;

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
     * Little's-law bound of a burst: the first time the callee can have served every call at full use, each taking
     * {@code serviceTime}, its capacity changing as the steps say. A rise is usable at once; a drop is complete one
     * service time later (busy workers finish their call), so the capacity usable at a time is the highest over the
     * service time before it.
     */
    double burstBoundSeconds(Duration serviceTime) {
        double service = serviceTime.toNanos() / 1e9;
        TreeSet<Double> changes = new TreeSet<>(List.of(0.0));
        for (CapacityStep step : this.capacitySteps) {
            double at = step.at().toNanos() / 1e9;
            changes.add(at);
            changes.add(at + service);
        }
        double left = this.burst;
        for (double from : changes) {
            Double until = changes.higher(from);
            // Constant between two boundaries; asked in the middle, so no rounding puts it on one.
            int usable = usableWorkers(from + ((until == null) ? service : until - from) / 2, service);
            double served = (until == null) ? Double.POSITIVE_INFINITY : (until - from) * usable / service;
            if (served >= left) {
                return from + left * service / usable;
            }
            left -= served;
        }
        throw new IllegalStateException("unreachable: the last phase serves every call");
    }

    /** The most workers at any time over the {@code service} seconds up to {@code at}: those a drop has not stopped. */
    private int usableWorkers(double at, double service) {
        int usable = 0;
        int current = this.workers;
        for (CapacityStep step : this.capacitySteps) {
            double stepAt = step.at().toNanos() / 1e9;
            if (stepAt > at) {
                break;
            }
            if (stepAt > at - service) {
                usable = Math.max(usable, current);
            }
            current = step.workers();
        }
        return Math.max(usable, current);
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
