package io.github.loombulkhead.benchmarks.adaptive;

import java.util.Arrays;

/** Turns a {@link Trace} into a {@link SimulationResult} for the scenario's reported phase. */
final class Metrics {

    private Metrics() {
    }

    static SimulationResult of(Scenario scenario, CalleeModel callee, Contender contender, Trace trace) {
        long phaseStart = scenario.phaseStart().toNanos();
        long from = scenario.measureFrom().toNanos();
        long to = scenario.reportUntil().toNanos();
        int capacity = scenario.phaseWorkers();
        double serviceNanos = callee.serviceTime().toNanos();
        double capacityCalls = 0;
        for (long t = from; t < to; t += trace.tickNanos) {
            capacityCalls += scenario.workersAt(t) / serviceNanos * trace.tickNanos;
        }
        // The calls that arrived, not the mean arrival rate: a light load that happened to bring more calls than its
        // mean scores no higher for it. Calls that queued before the span and finish inside it still count.
        double achievable = Math.min(trace.arrivalsBetween(from, to), capacityCalls);
        long successes = 0;
        long drops = 0;
        long[] latencies = new long[trace.calls];
        int n = 0;
        for (int i = 0; i < trace.calls; i++) {
            long end = trace.ends[i];
            if (end < from || end >= to) {
                continue;
            }
            latencies[n++] = trace.latencies[i];
            if (trace.succeeded[i]) {
                successes++;
            }
            else {
                drops++;
            }
        }
        Arrays.sort(latencies, 0, n);
        long p99 = (n == 0) ? 0 : latencies[Math.max(0, (int) Math.ceil(0.99 * n) - 1)];
        int firstTick = (int) (from / trace.tickNanos);
        int lastTick = (int) Math.min(trace.ticks, to / trace.tickNanos);
        double sum = 0;
        double sumSquares = 0;
        for (int i = firstTick; i < lastTick; i++) {
            sum += trace.limits[i];
            sumSquares += (double) trace.limits[i] * trace.limits[i];
        }
        int count = Math.max(1, lastTick - firstTick);
        double mean = sum / count;
        double spread = Math.sqrt(Math.max(0, sumSquares / count - mean * mean));
        int fifth = Math.max(1, count / 5);
        double drift = (mean(trace, lastTick - fifth, lastTick) - mean(trace, firstTick, firstTick + fifth)) / capacity;
        double settle = (scenario.offeredLoad() < 1 && scenario.burst() == 0) ? Double.NaN
                : settle(trace, phaseStart, to, capacity);
        return new SimulationResult(scenario.name(), contender.label(), capacity, successes / achievable,
                (double) p99 / callee.unloadedP99Nanos(), settle, spread / capacity, drift, mean / capacity, drops,
                trace.rejectionsBetween(from, to));
    }

    /**
     * Seconds from the phase start until the limit's moving average over {@value #SETTLE_AVERAGE_MILLIS} ms enters
     * [C, 1.25 C] and stays there for the rest of the phase; infinity when it is outside at the end, or entered the
     * band less than one averaging window before the end (a limit that only touched the band settled nowhere).
     */
    static double settle(Trace trace, long phaseStart, long to, int capacity) {
        int first = (int) (phaseStart / trace.tickNanos);
        int last = (int) Math.min(trace.ticks, to / trace.tickNanos);
        int window = (int) Math.max(1, SETTLE_AVERAGE_MILLIS * 1_000_000 / trace.tickNanos);
        int settledFrom = first;
        double sum = 0;
        for (int i = first; i < last; i++) {
            sum += trace.limits[i];
            if (i - first >= window) {
                sum -= trace.limits[i - window];
            }
            double average = sum / Math.min(window, i - first + 1);
            if (average < capacity || average > 1.25 * capacity) {
                settledFrom = i + 1;
            }
        }
        return (last - settledFrom < window) ? Double.POSITIVE_INFINITY
                : (settledFrom - first) * trace.tickNanos / 1e9;
    }

    /** The moving average the settling time looks at: ten RTTs of the standard callee, about one sawtooth cycle. */
    static final long SETTLE_AVERAGE_MILLIS = 3000;

    private static double mean(Trace trace, int from, int to) {
        double sum = 0;
        for (int i = from; i < to; i++) {
            sum += trace.limits[i];
        }
        return sum / Math.max(1, to - from);
    }
}
