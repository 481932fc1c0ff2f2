package io.github.loombulkhead.benchmarks.adaptive;

import java.util.Arrays;

/**
 * What one simulation recorded: the limit at every tick, every admitted call's end, latency and outcome, and when
 * calls arrived and were rejected.
 */
final class Trace {

    final long tickNanos;

    int[] limits = new int[1024];

    int ticks;

    long[] ends = new long[4096];

    long[] latencies = new long[4096];

    boolean[] succeeded = new boolean[4096];

    int calls;

    long[] arrivals = new long[4096];

    int arrived;

    long[] rejections = new long[64];

    int rejected;

    Trace(long tickNanos) {
        this.tickNanos = tickNanos;
    }

    void tick(int limit) {
        if (this.ticks == this.limits.length) {
            this.limits = Arrays.copyOf(this.limits, this.ticks * 2);
        }
        this.limits[this.ticks++] = limit;
    }

    void call(long end, long latency, boolean success) {
        if (this.calls == this.ends.length) {
            this.ends = Arrays.copyOf(this.ends, this.calls * 2);
            this.latencies = Arrays.copyOf(this.latencies, this.calls * 2);
            this.succeeded = Arrays.copyOf(this.succeeded, this.calls * 2);
        }
        this.ends[this.calls] = end;
        this.latencies[this.calls] = latency;
        this.succeeded[this.calls] = success;
        this.calls++;
    }

    void arrival(long at) {
        if (this.arrived == this.arrivals.length) {
            this.arrivals = Arrays.copyOf(this.arrivals, this.arrived * 2);
        }
        this.arrivals[this.arrived++] = at;
    }

    void rejection(long at) {
        if (this.rejected == this.rejections.length) {
            this.rejections = Arrays.copyOf(this.rejections, this.rejected * 2);
        }
        this.rejections[this.rejected++] = at;
    }

    /** Arrivals in [from, to). */
    long arrivalsBetween(long from, long to) {
        return countBetween(this.arrivals, this.arrived, from, to);
    }

    /** Rejections in [from, to). */
    long rejectionsBetween(long from, long to) {
        return countBetween(this.rejections, this.rejected, from, to);
    }

    private static long countBetween(long[] times, int count, long from, long to) {
        long n = 0;
        for (int i = 0; i < count; i++) {
            if (times[i] >= from && times[i] < to) {
                n++;
            }
        }
        return n;
    }
}
