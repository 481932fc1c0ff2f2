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
        double offeredPerNano = scenario.offeredLoad() * scenario.workers() / serviceNanos;
        double achievable = 0;
        for (long t = from; t < to; t += trace.tickNanos) {
            double capacityPerNano = scenario.workersAt(t) / serviceNanos;
            achievable += Math.min(offeredPerNano, capacityPerNano) * trace.tickNanos;
        }
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
        return new SimulationResult(scenario.name(), contender.label(), capacity, successes / achievable,
                (double) p99 / callee.unloadedP99Nanos(), settle(trace, phaseStart, to, capacity), spread / capacity,
                drift, mean, drops, trace.rejected);
    }

    private static double settle(Trace trace, long phaseStart, long to, int capacity) {
        int first = (int) (phaseStart / trace.tickNanos);
        int last = (int) Math.min(trace.ticks, to / trace.tickNanos);
        int settledFrom = first;
        for (int i = first; i < last; i++) {
            int limit = trace.limits[i];
            if (limit < capacity || limit > 1.25 * capacity) {
                settledFrom = i + 1;
            }
        }
        return (settledFrom >= last) ? Double.NaN : (settledFrom - first) * trace.tickNanos / 1e9;
    }

    private static double mean(Trace trace, int from, int to) {
        double sum = 0;
        for (int i = from; i < to; i++) {
            sum += trace.limits[i];
        }
        return sum / Math.max(1, to - from);
    }
}
