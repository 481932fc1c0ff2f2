package io.github.loombulkhead.benchmarks.report;

import java.util.Map;

/**
 * One benchmark result read from JMH's JSON: the score with its 99.9 % error, and the p50/p99 when sampled.
 * {@code p50} and {@code p99} are {@code NaN} for benchmark modes without percentiles.
 */
public record JmhRow(String benchmarkClass, String method, String benchmarkMode, Map<String, String> params, double score,
        double error, String unit, double p50, double p99) {

    /** The value of a {@code @Param}, or {@code null}. */
    public String param(String name) {
        return this.params.get(name);
    }
}
