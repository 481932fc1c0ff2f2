package io.github.loombulkhead.benchmarks.adaptive;

/** An adaptive limit as the simulation drives it: one sample per finished call, a tick every few milliseconds. */
interface SimulatedLimit {

    int limit();

    void onSample(long startNanos, long rttNanos, int inflight, boolean dropped);

    /** Called every tick with the start of the oldest call in flight ({@code nowNanos} when none is). */
    default void onTick(long nowNanos, long oldestStartNanos) {
    }
}
