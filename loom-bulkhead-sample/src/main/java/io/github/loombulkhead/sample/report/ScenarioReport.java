package io.github.loombulkhead.sample.report;

import java.util.List;

import io.github.loombulkhead.sample.CapacityChange;
import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;

/**
 * The scenario part of {@code report.json}.
 *
 * @param requests requests per mode, all submitted at once
 * @param limit maximum concurrent calls of the bounded modes with a static limit
 * @param calleeCapacity worker threads of the callee when a mode starts
 * @param calleeLatencyMs time the callee takes per request
 * @param readTimeoutMs read timeout of the caller's HTTP client
 * @param javaVersion version of the caller JVM
 * @param cpus processors available to the caller JVM
 * @param connectTimeoutMs connect timeout of the caller's HTTP client
 * @param scale preset the unset values came from
 * @param modes modes in the order they ran
 * @param maxHeapBytes maximum heap of the caller JVM
 * @param warmupRequests requests sent before the first mode
 * @param sampleIntervalMs interval of the time series
 * @param nativeMemoryTracking whether thread-stack memory was measured
 * @param retainedHeap whether the heap held by submitted work was measured
 * @param jvm name and vendor of the caller JVM
 * @param os operating system of the machine
 * @param startedAt when the comparison started (ISO-8601)
 * @param loadAverage the machine's load average over the last minute when the comparison started (-1 if unknown):
 * other work on the machine shifts every timing
 * @param adaptiveMaxLimit most concurrent calls an adaptive mode may ever allow
 * @param adaptiveAlgorithm the algorithm of loom-bulkhead-adaptive's bulkhead, such as {@code gradient};
 * {@code null} when that mode did not run
 * @param capacityChanges changes of the callee's worker threads during each mode, by time since the mode started
 * @param littlesLawBoundMs requests / capacity × latency, piecewise when the capacity changes: no mode has every
 * request answered sooner
 * @param replicas with several replicas: the number of caller processes that shared {@code requests} (absent with
 * one process)
 */
public record ScenarioReport(int requests, int limit, int calleeCapacity, long calleeLatencyMs, long readTimeoutMs,
        String javaVersion, int cpus, long connectTimeoutMs, String scale, List<String> modes, long maxHeapBytes,
        int warmupRequests, long sampleIntervalMs, boolean nativeMemoryTracking, boolean retainedHeap, String jvm,
        String os, String startedAt, double loadAverage, int adaptiveMaxLimit, @Nullable String adaptiveAlgorithm,
        List<CapacityChange> capacityChanges, long littlesLawBoundMs,
        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Integer replicas) {

    /** The scenario of a comparison in one process. */
    public ScenarioReport(int requests, int limit, int calleeCapacity, long calleeLatencyMs, long readTimeoutMs,
            String javaVersion, int cpus, long connectTimeoutMs, String scale, List<String> modes, long maxHeapBytes,
            int warmupRequests, long sampleIntervalMs, boolean nativeMemoryTracking, boolean retainedHeap, String jvm,
            String os, String startedAt, double loadAverage, int adaptiveMaxLimit, @Nullable String adaptiveAlgorithm,
            List<CapacityChange> capacityChanges, long littlesLawBoundMs) {
        this(requests, limit, calleeCapacity, calleeLatencyMs, readTimeoutMs, javaVersion, cpus, connectTimeoutMs,
                scale, modes, maxHeapBytes, warmupRequests, sampleIntervalMs, nativeMemoryTracking, retainedHeap, jvm,
                os, startedAt, loadAverage, adaptiveMaxLimit, adaptiveAlgorithm, capacityChanges, littlesLawBoundMs,
                null);
    }
}
