package io.github.loombulkhead.benchmarks.adaptive;

/**
 * One algorithm in one scenario, measured over the scenario's reported span.
 *
 * @param goodput successful calls over what the callee could complete: its capacity, or the calls that arrived when
 * fewer
 * @param p99Ratio p99 latency of admitted calls (a dropped call counts with its timeout) over the idle callee's p99
 * @param settleSeconds from the phase start until the limit's 3-s moving average stays within [C, 1.25 C];
 * {@code NaN} under light load, where no band applies; infinite when it is outside the band at the end or stayed
 * inside for less than one averaging window
 * @param limitSpread standard deviation of the limit as a fraction of C
 * @param drift change of the mean limit from the first to the last fifth of the measured span, as a fraction of C
 * @param meanLimit mean limit as a multiple of C
 * @param timeouts calls the caller gave up on (read timeout)
 * @param rejected calls that waited for a permit longer than the maximum wait, rejected within the measured span
 */
public record SimulationResult(String scenario, String contender, int capacity, double goodput, double p99Ratio,
        double settleSeconds, double limitSpread, double drift, double meanLimit, long timeouts, long rejected) {
}
