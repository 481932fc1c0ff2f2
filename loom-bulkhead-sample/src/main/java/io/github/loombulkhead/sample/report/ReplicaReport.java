package io.github.loombulkhead.sample.report;

import java.util.List;

/**
 * One replica's part of a mode in {@code report.json}, as that caller process measured it.
 *
 * @param replica position of the replica, from 0
 * @param requests requests this replica submitted
 * @param succeeded requests that got an answer
 * @param failed requests that did not
 * @param failures the failed requests split by cause
 * @param durationMs from this replica's first submission until every one of its requests ended
 * @param p50Ms median latency of its requests
 * @param p99Ms 99th percentile of the same
 * @param peakInFlight highest number of its HTTP exchanges with the callee in progress at once (sampled)
 * @param timeline its time series; every replica started the mode at the same moment
 */
public record ReplicaReport(int replica, int requests, int succeeded, int failed, RunReport.Failures failures,
        long durationMs, long p50Ms, long p99Ms, int peakInFlight, List<TimelinePoint> timeline) {

    /** The figures of {@code run}, the report of replica {@code replica}. */
    public static ReplicaReport of(int replica, RunReport run) {
        return new ReplicaReport(replica, run.requests(), run.succeeded(), run.failed(), run.failures(),
                run.durationMs(), run.p50Ms(), run.p99Ms(), run.peakInFlight(), run.timeline());
    }
}
