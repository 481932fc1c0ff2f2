package io.github.loombulkhead.limit;

import java.util.Map;

/**
 * Decides how big a bulkhead's limit is; the bulkhead enforces it. The bulkhead feeds one sample per finished call
 * and applies the returned limit with {@code changeLimit} when it differs from its own.
 *
 * <p>Every method may be called by many threads at once and never blocks: implementations accumulate samples
 * without locks and let one thread at a time (a {@code tryLock}) turn them into a new limit. All times are
 * {@link System#nanoTime()} values passed in by the caller, so an algorithm needs no clock of its own and runs
 * the same on a simulated one. The limit is always within the configured minimum and maximum.
 */
public interface LimitAlgorithm {

    /** The algorithm's configured name, such as {@code gradient} or {@code aimd}. */
    String getName();

    /** The limit the algorithm proposes now. */
    int getLimit();

    /**
     * A call got its permit and starts now. Optional: an algorithm that watches the calls still in flight (the
     * gradient groups them by start to see a queue before they complete) counts it; the default ignores it. A call
     * reported here is matched to its {@link #onSample} by its start time, so every such call must end in one, an
     * {@link Outcome#IGNORED} one included.
     * @param startNanos when the call got its permit ({@code System.nanoTime()}), as its sample will say
     * @param inflight calls holding a permit now, this one included, as its sample will say
     */
    default void onStart(long startNanos, int inflight) {
    }

    /**
     * Takes one finished call into account and returns the limit after it.
     * @param startNanos when the call got its permit ({@code System.nanoTime()})
     * @param rttNanos how long the call held its permit
     * @param inflight calls holding a permit when this one got its own, itself included
     * @param outcome what the call tells about the callee; {@link Outcome#IGNORED} changes nothing (it only ends a
     * call reported to {@link #onStart})
     * @return the limit to apply
     */
    int onSample(long startNanos, long rttNanos, int inflight, Outcome outcome);

    /**
     * Takes a call that succeeded while the caller's own process paused for {@code pausedNanos} of its
     * {@code rttNanos} (a stop-the-world collection, the process descheduled; see {@link CallerPauses}): the callee
     * served it, but its RTT is only known to lie between {@code rttNanos - pausedNanos} and {@code rttNanos}. The
     * default takes no sample from it ({@link Outcome#IGNORED}).
     * @return the limit to apply
     */
    default int onPausedSample(long startNanos, long rttNanos, long pausedNanos, int inflight) {
        return onSample(startNanos, rttNanos, inflight, Outcome.IGNORED);
    }

    /**
     * What the algorithm believes now, for metrics and diagnostics: names (documented by each algorithm) to values,
     * durations in nanoseconds. Empty when the algorithm keeps no estimates.
     */
    default Map<String, Number> getEstimates() {
        return Map.of();
    }

    /** A new algorithm as {@code config} describes it, starting at its initial limit. */
    static LimitAlgorithm of(AdaptiveLimitConfig config) {
        return switch (config.getAlgorithm()) {
            case GRADIENT -> new GradientLimit(config);
            case AIMD -> new AimdLimit(config);
        };
    }
}
