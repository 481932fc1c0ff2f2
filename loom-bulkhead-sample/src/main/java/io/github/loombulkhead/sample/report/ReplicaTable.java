package io.github.loombulkhead.sample.report;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/** The replicas part of the report, as rows for report.md and report.html; empty for a run in one process. */
final class ReplicaTable {

    static final List<String> TITLES = List.of("mode", "replica", "requests", "succeeded", "failed", "success rate",
            "duration", "p50", "p99", "peak in flight");

    static final String NOTES = """
            Each replica is a caller JVM of its own; all start a mode at the same moment, each with its share of the \
            requests, against the one callee. 'all' adds the replicas up (duration: the longest; p50 and p99: the \
            highest replica's, an upper bound of all requests' percentile); its peak in flight is the most calls the \
            replicas had in flight together (sampled), and 'callee served at once' the most requests the callee \
            served at the same moment, counted by the callee itself. loom-bulkhead keeps the limit in each replica, \
            so the replicas may have limit x replicas in flight; loom-bulkhead-cluster shares one limit through \
            Redis.""";

    private ReplicaTable() {
    }

    /** Whether {@code report} came from several replicas. */
    static boolean applies(Report report) {
        return report.runs().stream().anyMatch((run) -> run.replicas() != null);
    }

    /** One row per replica and a total row per mode; {@code callee} is the total's "callee served at once". */
    static List<List<String>> rows(Report report) {
        List<List<String>> rows = new ArrayList<>();
        for (RunReport run : report.runs()) {
            List<ReplicaReport> replicas = run.replicas();
            if (replicas == null) {
                continue;
            }
            for (ReplicaReport replica : replicas) {
                rows.add(List.of(run.mode(), String.valueOf(replica.replica()), Formats.count(replica.requests()),
                        Formats.count(replica.succeeded()), Formats.count(replica.failed()),
                        Formats.percent((double) replica.succeeded() / replica.requests()),
                        Formats.seconds(replica.durationMs()), Formats.millis(replica.p50Ms()),
                        Formats.millis(replica.p99Ms()), Formats.count(replica.peakInFlight())));
            }
            rows.add(List.of(run.mode(), "all", Formats.count(run.requests()), Formats.count(run.succeeded()),
                    Formats.count(run.failed()), Formats.percent(run.successRate()), Formats.seconds(run.durationMs()),
                    Formats.millis(run.p50Ms()), Formats.millis(run.p99Ms()), Formats.count(run.peakInFlight())
                            + calleePeak(run.calleePeakInFlight())));
        }
        return rows;
    }

    private static String calleePeak(@Nullable Integer peak) {
        return (peak != null) ? " (callee served at once: " + Formats.count(peak) + ")" : "";
    }
}
