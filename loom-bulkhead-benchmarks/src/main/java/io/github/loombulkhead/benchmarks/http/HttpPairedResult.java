package io.github.loombulkhead.benchmarks.http;

/**
 * Latency of one client variant over all interleaved rounds (microseconds). {@code addedP50} is the geometric mean
 * over rounds of this variant's p50 relative to the unlimited client's p50 in the same round, minus 1, with its
 * 99.9 % confidence half-width across rounds ({@code addedP50Error}).
 */
public record HttpPairedResult(String client, int rounds, long samples, double p50Micros, double p99Micros,
        double addedP50, double addedP50Error) {
}
