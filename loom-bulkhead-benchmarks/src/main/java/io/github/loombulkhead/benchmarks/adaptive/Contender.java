package io.github.loombulkhead.benchmarks.adaptive;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.AIMDLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.CallerPauses;
import io.github.loombulkhead.limit.LimitAlgorithm;
import io.github.loombulkhead.limit.LimitRamp;
import io.github.loombulkhead.limit.Outcome;

/**
 * The algorithms compared, each at its own defaults except the ceiling, which is the same for all. Netflix's
 * are driven through their {@code Limit} API as {@code SimpleLimiter} would drive them: {@code onSample} on every
 * success and drop.
 */
public enum Contender {

    /** loom-bulkhead {@code gradient}, the default algorithm. */
    LOOM_GRADIENT("loom `gradient`"),

    /** loom-bulkhead {@code aimd}. */
    LOOM_AIMD("loom `aimd`"),

    /** Netflix concurrency-limits 0.5.4 {@code VegasLimit} (initial 20). */
    NETFLIX_VEGAS("Netflix Vegas"),

    /** Netflix concurrency-limits 0.5.4 {@code Gradient2Limit} (initial 20, min 20). */
    NETFLIX_GRADIENT2("Netflix Gradient2"),

    /** Netflix concurrency-limits 0.5.4 {@code AIMDLimit} (initial 20, min 20, backoff 0.9). */
    NETFLIX_AIMD("Netflix AIMD"),

    /** Envoy's adaptive-concurrency gradient formula ({@link EnvoyGradient}). */
    ENVOY_GRADIENT("Envoy gradient");

    private final String label;

    Contender(String label) {
        this.label = label;
    }

    /** How the tables name it. */
    public String label() {
        return this.label;
    }

    SimulatedLimit create(int ceiling, long seed) {
        return switch (this) {
            case LOOM_GRADIENT -> loom(AdaptiveLimitConfig.custom().maxLimit(ceiling).build());
            case LOOM_AIMD -> loom(AdaptiveLimitConfig.custom()
                .algorithm(AdaptiveLimitConfig.Algorithm.AIMD)
                .maxLimit(ceiling)
                .build());
            case NETFLIX_VEGAS -> netflix(VegasLimit.newBuilder().maxConcurrency(ceiling).build());
            case NETFLIX_GRADIENT2 -> netflix(Gradient2Limit.newBuilder().maxConcurrency(ceiling).build());
            case NETFLIX_AIMD -> netflix(AIMDLimit.newBuilder().maxLimit(ceiling).build());
            case ENVOY_GRADIENT -> new EnvoyGradient(ceiling, seed);
        };
    }

    /**
     * A loom algorithm as the bulkhead applies it: told of every call that starts, decreases at once, rises through
     * a {@link LimitRamp}.
     */
    static SimulatedLimit loom(AdaptiveLimitConfig config) {
        LimitAlgorithm algorithm = LimitAlgorithm.of(config);
        LimitRamp ramp = new LimitRamp(algorithm.getLimit());
        CallerPauses pauses = new CallerPauses();
        return new SimulatedLimit() {

            @Override
            public int limit() {
                return ramp.getLimit();
            }

            @Override
            public void onStart(long nowNanos, int inflight) {
                algorithm.onStart(nowNanos, inflight);
            }

            @Override
            public void onSample(long startNanos, long rttNanos, int inflight, boolean dropped) {
                long heldUp = dropped ? 0 : pauses.heldUpNanos(startNanos, rttNanos);
                if (heldUp > 0) {
                    // As the bulkhead does with a success the caller's pause held up.
                    int proposed = algorithm.onPausedSample(startNanos, rttNanos, heldUp, inflight);
                    ramp.propose(proposed, startNanos + rttNanos, rttNanos - heldUp);
                    return;
                }
                int proposed = algorithm.onSample(startNanos, rttNanos, inflight,
                        dropped ? Outcome.DROPPED : Outcome.SUCCESS);
                ramp.propose(proposed, startNanos + rttNanos, rttNanos);
            }

            @Override
            public void callerPaused(long fromNanos, long toNanos) {
                pauses.paused(fromNanos, toNanos);
            }

            @Override
            public void onTick(long nowNanos) {
                ramp.advance(nowNanos);
            }

            @Override
            public long nextChangeNanos() {
                return ramp.nextStepNanos();
            }
        };
    }

    private static SimulatedLimit netflix(Limit limit) {
        return new SimulatedLimit() {

            @Override
            public int limit() {
                return limit.getLimit();
            }

            @Override
            public void onSample(long startNanos, long rttNanos, int inflight, boolean dropped) {
                limit.onSample(startNanos, rttNanos, inflight, dropped);
            }
        };
    }
}
