package io.github.loombulkhead;

import io.github.loombulkhead.limit.Outcome;

/**
 * Receives a bulkhead's events; the starter binds these to Micrometer. Methods are called on the
 * thread that caused the event and must be fast and must not throw.
 */
public interface BulkheadListener {

    /** A call or task got a permit after waiting {@code waitNanos} (0 when one was free). */
    default void onPermitted(Bulkhead bulkhead, long waitNanos) {
    }

    /** A call or task was refused after waiting {@code waitNanos}. */
    default void onRejected(Bulkhead bulkhead, RejectionReason reason, long waitNanos) {
    }

    /** A call or task that held a permit for {@code executionNanos} finished and gave it back. */
    default void onCompleted(Bulkhead bulkhead, long executionNanos) {
    }

    /**
     * An adaptive bulkhead's limit algorithm took a sample: a call's round trip and what its outcome tells
     * about the callee ({@code SUCCESS} or {@code DROPPED}). Not called for static bulkheads.
     */
    default void onSample(Bulkhead bulkhead, long rttNanos, Outcome outcome) {
    }

    /**
     * A call of an adaptive bulkhead succeeded while a pause of this process (a stop-the-world collection, the
     * process descheduled) took {@code pausedNanos} of its {@code rttNanos}: its algorithm took it as held up,
     * not as a sample of the callee's RTT (see {@link io.github.loombulkhead.limit.CallerPauses}). Not called for
     * static bulkheads.
     */
    default void onPausedSample(Bulkhead bulkhead, long rttNanos, long pausedNanos) {
    }

    /**
     * The limit was changed at runtime. A larger limit is reported before any call can take the new
     * permits, so resources sized from the limit can grow first; a smaller one after it applies.
     */
    default void onLimitChanged(Bulkhead bulkhead, int oldLimit, int newLimit) {
    }
}
