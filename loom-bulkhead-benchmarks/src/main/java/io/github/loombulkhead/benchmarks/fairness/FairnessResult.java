package io.github.loombulkhead.benchmarks.fairness;

/**
 * Wait times (milliseconds) of every acquisition granted after warm-up, including callers that arrived during
 * warm-up and callers served only while the run drained; {@code throughputPerSecond} counts grants inside the
 * measured window. {@code idealFifoWaitMillis} is what a
 * strict FIFO queue gives the last caller in line: {@code (clients - permits) / permits} mean hold times;
 * {@code maxOverIdeal} is the worst wait in units of it (about 1 when waits are bounded by queue position).
 */
public record FairnessResult(String mode, int permits, int clients, long samples, double throughputPerSecond,
        double meanHoldMillis, double p50Millis, double p90Millis, double p99Millis, double p999Millis,
        double maxMillis, double idealFifoWaitMillis, double maxOverIdeal, long rejected) {
}
