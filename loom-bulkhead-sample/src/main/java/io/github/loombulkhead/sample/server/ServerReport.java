package io.github.loombulkhead.sample.server;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The server comparison's report, as written to {@code report.json}.
 *
 * @param scenario what was run
 * @param server one result per setup and concurrency level
 * @param timelines the front server over time, per setup and level
 * @param notes how to read it
 */
public record ServerReport(Scenario scenario, List<Result> server, List<Timeline> timelines, String notes) {

    /**
     * What was run.
     *
     * @param calleeCapacity worker threads of the callee
     * @param calleeLatencyMs time the callee takes per call
     * @param readTimeoutMs read timeout of the front servers' callee client
     * @param callsPerRequest callee calls each front request makes
     * @param requests the fewest requests ab sends per setup and level ({@code requests} of each result: what it sent)
     * @param levelDurationMs each level sends at least what the setup's Little's-law bound serves in this time
     * @param warmupRequests requests of each front server's warm-up, spread over the levels (at least one per
     * connection at each level)
     * @param warmupDurationMs the longest warm-up, at the setup's bound
     * @param concurrency the levels (ab -c)
     * @param setups the setups in the order they ran
     * @param cores processors available to this JVM
     * @param ab ab's version
     * @param frontJvmArguments options of the front servers' JVMs
     * @param inboundMaxWaitMs the inbound bulkhead's max wait, beyond the longest wait a request can have at the
     * highest level, so that it times no request out
     */
    public record Scenario(int calleeCapacity, long calleeLatencyMs, long readTimeoutMs, int callsPerRequest,
            int requests, long levelDurationMs, int warmupRequests, long warmupDurationMs, List<Integer> concurrency,
            List<String> setups, int cores, String ab, List<String> frontJvmArguments, long inboundMaxWaitMs) {
    }

    /**
     * One setup at one concurrency level: ab's numbers and the front server's peaks.
     *
     * @param setup the setup's id
     * @param concurrency ab -c
     * @param requests requests ab sent and completed (ab -n), answered or not
     * @param served requests answered with a 2xx status
     * @param unanswered requests that got no answer with a status (refused, reset, timed out, closed without a
     * byte): {@code requests - served - non2xx}
     * @param requestsPerSecond served requests per second: ab's req/s counts every completed request, answered or not
     * @param meanMs mean time of a request, from connect to its last byte
     * @param abTimePerRequestMs ab's "Time per request" (concurrency / requests per second), which the reference
     * quoted as mean latency; equal to the mean only in a steady state
     * @param p50Ms half of the requests were served within this
     * @param p99Ms 99 % were served within this
     * @param failed ab's failures (connect, receive, exceptions; a request may count twice)
     * @param non2xx answers with a status outside 2xx (503 from the inbound bulkhead, 500 when a callee call failed)
     * @param littlesLawBound requests per second no run of this setup can exceed at this level
     * @param littlesLawEfficiency requestsPerSecond / littlesLawBound: the share of the bound served with 2xx
     * @param durationMs time the run took
     * @param peakLiveThreads most live platform threads of the front JVM
     * @param peakHeapUsedBytes most heap in use in the front JVM
     * @param peakCalleeInFlight most calls to the callee in progress at once
     * @param peakInboundWaiting most requests waiting for an inbound permit
     * @param peakInboundActive most requests holding an inbound permit: each runs on one virtual thread, a
     * waiting request on none
     * @param meanFrontCpu CPU the front JVM used during the run, as a share of all cores
     * @param meanMachineCpu CPU the whole machine used during the run (ab, callee, front and anything else)
     * @param inboundLimit requests the inbound bulkhead lets run at once; {@code null} without one
     * @param inboundQueueCapacity requests it lets wait; {@code null} without one
     * @param inboundQueueHoldsLoad whether limit + queue capacity is at least the concurrency, so it sheds nothing
     * (its max wait, {@link Scenario#inboundMaxWaitMs()}, is beyond the longest wait a request can have);
     * {@code null} without an inbound bulkhead
     * @param inboundRejected requests the inbound bulkhead answered with {@code 503} during the run, as it counted
     * them (ab counts them among non-2xx)
     */
    public record Result(String setup, int concurrency, long requests, long served, long unanswered,
            double requestsPerSecond, double meanMs,
            double abTimePerRequestMs, long p50Ms, long p99Ms, long failed, long non2xx, double littlesLawBound,
            double littlesLawEfficiency, long durationMs, int peakLiveThreads, long peakHeapUsedBytes,
            int peakCalleeInFlight, int peakInboundWaiting, int peakInboundActive, double meanFrontCpu,
            double meanMachineCpu, @Nullable Integer inboundLimit, @Nullable Integer inboundQueueCapacity,
            @Nullable Boolean inboundQueueHoldsLoad, long inboundRejected) {
    }

    /**
     * The front server during one run.
     *
     * @param setup the setup's id
     * @param concurrency ab -c
     * @param points samples, {@code tMs} from the start of the run
     */
    public record Timeline(String setup, int concurrency, List<Point> points) {
    }

    /**
     * One sample.
     *
     * @param tMs time since the run started
     * @param liveThreads live platform threads
     * @param heapUsedBytes heap in use
     * @param calleeInFlight calls to the callee in progress
     * @param inboundActive requests holding an inbound permit
     * @param inboundWaiting requests waiting for one
     * @param frontCpu CPU the front JVM used, as a share of all cores
     * @param machineCpu CPU the whole machine used, as a share of all cores
     */
    public record Point(long tMs, int liveThreads, long heapUsedBytes, int calleeInFlight, int inboundActive,
            int inboundWaiting, double frontCpu, double machineCpu) {
    }
}
