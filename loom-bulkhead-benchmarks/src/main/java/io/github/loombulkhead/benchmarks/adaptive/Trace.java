package io.github.loombulkhead.benchmarks.adaptive;

import java.util.Arrays;

/** What one simulation recorded: the limit at every tick and every admitted call's end, latency and outcome. */
final class Trace {

    final long tickNanos;

    int[] limits = new int[1024];

    int ticks;

    long[] ends = new long[4096];

    long[] latencies = new long[4096];

    boolean[] succeeded = new boolean[4096];

    int calls;

    long rejected;

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
}
