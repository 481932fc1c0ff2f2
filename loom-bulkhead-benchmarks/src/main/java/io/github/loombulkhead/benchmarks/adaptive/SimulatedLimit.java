package io.github.loombulkhead.benchmarks.adaptive;

/** An adaptive limit as the simulation drives it: one sample per finished call, a tick every few milliseconds. */
interface SimulatedLimit {

    int limit();

    /** A call got its permit at {@code nowNanos}, with {@code inflight} calls in flight, itself included. */
    default void onStart(long nowNanos, int inflight) {
    }

    void onSample(long startNanos, long rttNanos, int inflight, boolean dropped);

    /** Called every tick and at {@link #nextChangeNanos()}, for limits that act on time rather than on samples. */
    default void onTick(long nowNanos) {
    }

    /**
     * The caller's process ran nothing from {@code fromNanos} until now, {@code toNanos}: heard before anything the
     * pause held back, as a detector thread would tell it. Only loom's limits use it.
     */
    default void callerPaused(long fromNanos, long toNanos) {
    }

    /** When the limit changes next without a sample (a step of loom's {@code LimitRamp}), or never. */
    default long nextChangeNanos() {
        return Long.MAX_VALUE;
    }
}
