package io.github.loombulkhead.sample.report;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;

/**
 * One mode's entry in {@code report.json}. All figures are about the caller JVM.
 *
 * @param mode the mode's id
 * @param requests requests submitted
 * @param succeeded requests that got an answer
 * @param failed requests that did not
 * @param failures the failed requests split by cause
 * @param successRate succeeded / requests, between 0 and 1
 * @param durationMs from the first submission until every request ended
 * @param littlesLawBoundMs the scenario's Little's-law bound: requests / capacity × latency, piecewise when the
 * capacity changes; no mode has every request answered sooner
 * @param littlesLawEfficiency the bound divided by the duration: 1 is as fast as the callee allows (above 1 only
 * when requests failed early)
 * @param p50Ms median latency from the mode's start (all requests are fired at once) to each request's outcome,
 * succeeded or failed
 * @param p99Ms 99th percentile of the same
 * @param peakPlatformThreads highest number of live platform threads during the mode
 * @param baselinePlatformThreads live platform threads right before the mode
 * @param peakVirtualThreads highest number of the mode's tasks running on virtual threads at once
 * @param peakInFlight highest number of HTTP exchanges with the callee in progress at once (sampled)
 * @param peakHeapUsedBytes highest heap used (sampled)
 * @param baselineHeapUsedBytes heap used after a full GC right before the mode
 * @param retainedHeapBytes heap used after a full GC taken once the first request has ended, minus the baseline:
 * what the queued, parked and running tasks hold ({@code null} when not measured; never for virtual-unbounded,
 * whose calls are all on the wire and would read late answers after the pause)
 * @param heapProbeGcMs the pause of that full GC (it is part of the duration)
 * @param threadStackReservedDeltaBytes highest change of reserved thread-stack memory since the baseline (native
 * memory tracking; {@code null} when off)
 * @param threadStackCommittedDeltaBytes change of committed thread-stack memory at the end of the mode
 * @param nativeThreadsDelta change in the number of threads native memory tracking counts, at the end
 * @param gcCount collections during the mode (the measuring full GC excluded)
 * @param gcTimeMs their accumulated time
 * @param cpuTimeMs CPU time the caller JVM used during the mode
 * @param timeline the time series
 * @param calleePeakInFlight with several replicas: the most requests the callee served at once during the mode,
 * counted by the callee itself (absent otherwise)
 * @param replicas with several replicas: each replica's figures, while the fields above are the totals: counts
 * summed, the duration the longest, p50 and p99 the highest replica's (an upper bound of the fleet's), the JVM
 * figures summed over the replicas' JVMs, the time series summed point by point (absent with one process)
 */
public record RunReport(String mode, int requests, int succeeded, int failed, Failures failures, double successRate,
        long durationMs, long littlesLawBoundMs, double littlesLawEfficiency, long p50Ms, long p99Ms, int peakPlatformThreads, int baselinePlatformThreads,
        int peakVirtualThreads, int peakInFlight, long peakHeapUsedBytes, long baselineHeapUsedBytes,
        @Nullable Long retainedHeapBytes, long heapProbeGcMs, @Nullable Long threadStackReservedDeltaBytes,
        @Nullable Long threadStackCommittedDeltaBytes, @Nullable Long nativeThreadsDelta, long gcCount, long gcTimeMs,
        long cpuTimeMs, List<TimelinePoint> timeline,
        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Integer calleePeakInFlight,
        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable List<ReplicaReport> replicas) {

    /** A run of one process: no callee peak, no replicas. */
    public RunReport(String mode, int requests, int succeeded, int failed, Failures failures, double successRate,
            long durationMs, long littlesLawBoundMs, double littlesLawEfficiency, long p50Ms, long p99Ms,
            int peakPlatformThreads, int baselinePlatformThreads, int peakVirtualThreads, int peakInFlight,
            long peakHeapUsedBytes, long baselineHeapUsedBytes, @Nullable Long retainedHeapBytes, long heapProbeGcMs,
            @Nullable Long threadStackReservedDeltaBytes, @Nullable Long threadStackCommittedDeltaBytes,
            @Nullable Long nativeThreadsDelta, long gcCount, long gcTimeMs, long cpuTimeMs,
            List<TimelinePoint> timeline) {
        this(mode, requests, succeeded, failed, failures, successRate, durationMs, littlesLawBoundMs,
                littlesLawEfficiency, p50Ms, p99Ms, peakPlatformThreads, baselinePlatformThreads, peakVirtualThreads,
                peakInFlight, peakHeapUsedBytes, baselineHeapUsedBytes, retainedHeapBytes, heapProbeGcMs,
                threadStackReservedDeltaBytes, threadStackCommittedDeltaBytes, nativeThreadsDelta, gcCount, gcTimeMs,
                cpuTimeMs, timeline, null, null);
    }

    /**
     * Failed requests by cause.
     *
     * @param readTimeout the callee did not answer within the read timeout
     * @param connect no connection could be made in time
     * @param rejected a bulkhead, semaphore or executor refused the task
     * @param other anything else
     */
    public record Failures(int readTimeout, int connect, int rejected, int other) {
    }
}
