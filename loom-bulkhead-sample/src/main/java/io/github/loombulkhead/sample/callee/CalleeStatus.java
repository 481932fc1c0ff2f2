package io.github.loombulkhead.sample.callee;

/**
 * What the callee is doing, as {@code GET /api/test/status} reports it.
 *
 * @param idle whether no request is being served or waiting for a worker (besides this one)
 * @param busyWorkers Tomcat worker threads serving a request, this one included
 * @param queuedRequests requests waiting for a worker
 * @param slowInProgress {@code /api/test/slow} requests being served
 * @param served {@code /api/test/slow} requests answered since start
 * @param capacity Tomcat worker threads at most, right now
 * @param latencyMs configured latency of {@code /api/test/slow}
 * @param peakSlowInProgress the most {@code /api/test/slow} requests served at once since the callee started or
 * the peak was last reset ({@code POST /api/test/peak/reset}), counted exactly, not sampled
 */
public record CalleeStatus(boolean idle, int busyWorkers, int queuedRequests, int slowInProgress, long served,
        int capacity, long latencyMs, int peakSlowInProgress) {
}
