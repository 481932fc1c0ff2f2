package io.github.loombulkhead.benchmarks.adaptive;

/**
 * One algorithm in one scenario. {@code goodput}: successful calls per second over what the callee could complete
 * (its capacity, or the offered load when that is lower). {@code p99Ratio}: p99 latency of admitted calls (a drop
 * counts with its timeout) over the idle callee's p99. {@code settleSeconds}: from the phase start until the limit
 * stays within [C, 1.25 C] for the rest of the phase ({@code NaN}: it does not). {@code limitSpread} and
 * {@code drift}: standard deviation of the limit and the change of its mean from the first to the last fifth of
 * the measured span, both as fractions of C.
 */
public record SimulationResult(String scenario, String contender, int capacity, double goodput, double p99Ratio,
        double settleSeconds, double limitSpread, double drift, double meanLimit, long drops, long rejected) {
}
