package io.github.loombulkhead.sample.report;

import java.util.List;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The result table shared by the console, {@code report.md} and {@code report.html}: the reference's columns
 * (mode, duration, succeeded, failed, success rate), with the scenario's Little's-law bound beside the duration,
 * followed by the measures it discussed.
 */
public final class ReportTable {

    /** The main table. */
    public static final List<Column> RESULTS = List.of(
            new Column("mode", "mode", RunReport::mode, RunReport::mode),
            new Column("duration", "durationMs", RunReport::durationMs, (r) -> Formats.seconds(r.durationMs())),
            new Column("Little's-law bound", "littlesLawBoundMs", RunReport::littlesLawBoundMs,
                    (r) -> Formats.seconds(r.littlesLawBoundMs())),
            new Column("bound / duration", "littlesLawEfficiency", RunReport::littlesLawEfficiency,
                    (r) -> Formats.percent(r.littlesLawEfficiency())),
            new Column("succeeded", "succeeded", RunReport::succeeded, (r) -> Formats.count(r.succeeded())),
            new Column("failed", "failed", RunReport::failed, (r) -> Formats.count(r.failed())),
            new Column("success rate", "successRate", RunReport::successRate, (r) -> Formats.percent(r.successRate())),
            new Column("p50", "p50Ms", RunReport::p50Ms, (r) -> Formats.millis(r.p50Ms())),
            new Column("p99", "p99Ms", RunReport::p99Ms, (r) -> Formats.millis(r.p99Ms())),
            new Column("platform threads (peak)", "peakPlatformThreads", RunReport::peakPlatformThreads,
                    (r) -> Formats.peak(r.peakPlatformThreads(), r.baselinePlatformThreads())),
            new Column("virtual threads (peak)", "peakVirtualThreads", RunReport::peakVirtualThreads,
                    (r) -> Formats.count(r.peakVirtualThreads())),
            new Column("heap used (peak)", "peakHeapUsedBytes", RunReport::peakHeapUsedBytes,
                    (r) -> Formats.megabytes(r.peakHeapUsedBytes())),
            new Column("heap held by tasks", "retainedHeapBytes", RunReport::retainedHeapBytes,
                    (r) -> Formats.megabytesOrNa(r.retainedHeapBytes())),
            new Column("thread stacks reserved", "threadStackReservedDeltaBytes",
                    RunReport::threadStackReservedDeltaBytes,
                    (r) -> Formats.megabytesDelta(r.threadStackReservedDeltaBytes())),
            new Column("GC", "gcCount", RunReport::gcCount, (r) -> Formats.gc(r.gcCount(), r.gcTimeMs())));

    /** Failures split by cause. */
    public static final List<Column> FAILURES = List.of(new Column("mode", "mode", RunReport::mode, RunReport::mode),
            new Column("read timeout", "failures.readTimeout", (r) -> r.failures().readTimeout(),
                    (r) -> Formats.count(r.failures().readTimeout())),
            new Column("connect", "failures.connect", (r) -> r.failures().connect(),
                    (r) -> Formats.count(r.failures().connect())),
            new Column("rejected", "failures.rejected", (r) -> r.failures().rejected(),
                    (r) -> Formats.count(r.failures().rejected())),
            new Column("other", "failures.other", (r) -> r.failures().other(),
                    (r) -> Formats.count(r.failures().other())));

    private ReportTable() {
    }

    /** The cells of {@code columns} for every run, as text. */
    public static List<List<String>> rows(List<Column> columns, Report report) {
        return report.runs().stream().map((run) -> columns.stream().map((c) -> c.text().apply(run)).toList()).toList();
    }

    /** The column titles. */
    public static List<String> titles(List<Column> columns) {
        return columns.stream().map(Column::title).toList();
    }

    /**
     * One column.
     *
     * @param title heading
     * @param field the report.json field it shows (dotted for nested fields)
     * @param value the raw value from the run
     * @param text the value as the table shows it
     */
    public record Column(String title, String field, Function<RunReport, @Nullable Object> value,
            Function<RunReport, String> text) {
    }
}
