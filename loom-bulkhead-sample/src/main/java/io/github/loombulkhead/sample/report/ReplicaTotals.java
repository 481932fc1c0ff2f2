package io.github.loombulkhead.sample.report;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

import org.jspecify.annotations.Nullable;

/**
 * One mode's entry of a comparison with several replicas: the replicas' own reports added up (see
 * {@link RunReport#replicas()} for how each figure is combined), with each replica's figures kept beside.
 */
public final class ReplicaTotals {

    private ReplicaTotals() {
    }

    /**
     * The totals of {@code runs}, one per replica in replica order, all of the same mode.
     * @param littlesLawBoundMs the bound of all requests together
     * @param calleePeakInFlight the most requests the callee served at once during the mode
     */
    public static RunReport of(List<RunReport> runs, long littlesLawBoundMs, int calleePeakInFlight) {
        RunReport first = runs.get(0);
        int requests = sum(runs, RunReport::requests);
        int succeeded = sum(runs, RunReport::succeeded);
        int failed = sum(runs, RunReport::failed);
        RunReport.Failures failures = new RunReport.Failures(sum(runs, (r) -> r.failures().readTimeout()),
                sum(runs, (r) -> r.failures().connect()), sum(runs, (r) -> r.failures().rejected()),
                sum(runs, (r) -> r.failures().other()));
        long durationMs = max(runs, RunReport::durationMs);
        List<TimelinePoint> timeline = timeline(runs);
        int peakInFlight = timeline.stream().mapToInt(TimelinePoint::inFlight).max().orElse(0);
        List<ReplicaReport> replicas = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            replicas.add(ReplicaReport.of(i, runs.get(i)));
        }
        return new RunReport(first.mode(), requests, succeeded, failed, failures, (double) succeeded / requests,
                durationMs, littlesLawBoundMs, (double) littlesLawBoundMs / Math.max(durationMs, 1),
                max(runs, RunReport::p50Ms), max(runs, RunReport::p99Ms), sum(runs, RunReport::peakPlatformThreads),
                sum(runs, RunReport::baselinePlatformThreads), sum(runs, RunReport::peakVirtualThreads), peakInFlight,
                sumLong(runs, RunReport::peakHeapUsedBytes), sumLong(runs, RunReport::baselineHeapUsedBytes),
                sumOrNull(runs, RunReport::retainedHeapBytes), max(runs, RunReport::heapProbeGcMs),
                sumOrNull(runs, RunReport::threadStackReservedDeltaBytes),
                sumOrNull(runs, RunReport::threadStackCommittedDeltaBytes), sumOrNull(runs, RunReport::nativeThreadsDelta),
                sumLong(runs, RunReport::gcCount), sumLong(runs, RunReport::gcTimeMs), sumLong(runs, RunReport::cpuTimeMs),
                timeline, calleePeakInFlight, List.copyOf(replicas));
    }

    /**
     * The replicas' time series added point by point (all started at the same moment and sample at the same
     * interval). A replica whose series ended counts with its requests completed, its JVM's threads and heap as last
     * seen, and nothing in flight, waiting or limiting.
     */
    static List<TimelinePoint> timeline(List<RunReport> runs) {
        int length = runs.stream().mapToInt((r) -> r.timeline().size()).max().orElse(0);
        List<TimelinePoint> points = new ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            List<TimelinePoint> at = new ArrayList<>();
            long elapsedMs = 0;
            for (RunReport run : runs) {
                List<TimelinePoint> own = run.timeline();
                if (i < own.size()) {
                    at.add(own.get(i));
                    elapsedMs = Math.max(elapsedMs, own.get(i).elapsedMs());
                }
                else if (!own.isEmpty()) {
                    TimelinePoint last = own.get(own.size() - 1);
                    at.add(new TimelinePoint(last.elapsedMs(), last.completed(), 0, 0, last.platformThreads(), 0,
                            last.heapUsedBytes(), last.threadStackReservedDeltaBytes(), null));
                }
            }
            points.add(new TimelinePoint(elapsedMs, sumPoints(at, TimelinePoint::completed),
                    sumPoints(at, TimelinePoint::inFlight), sumPoints(at, TimelinePoint::waiting),
                    sumPoints(at, TimelinePoint::platformThreads), sumPoints(at, TimelinePoint::virtualThreads),
                    at.stream().mapToLong(TimelinePoint::heapUsedBytes).sum(),
                    sumOrNull(at, TimelinePoint::threadStackReservedDeltaBytes), limit(at)));
        }
        return List.copyOf(points);
    }

    private static @Nullable Integer limit(List<TimelinePoint> points) {
        List<Integer> limits = points.stream().map(TimelinePoint::limit).filter((l) -> l != null).toList();
        return limits.isEmpty() ? null : limits.stream().mapToInt(Integer::intValue).sum();
    }

    private static int sumPoints(List<TimelinePoint> points, ToIntFunction<TimelinePoint> value) {
        return points.stream().mapToInt(value).sum();
    }

    private static int sum(List<RunReport> runs, ToIntFunction<RunReport> value) {
        return runs.stream().mapToInt(value).sum();
    }

    private static long sumLong(List<RunReport> runs, ToLongFunction<RunReport> value) {
        return runs.stream().mapToLong(value).sum();
    }

    private static long max(List<RunReport> runs, ToLongFunction<RunReport> value) {
        return runs.stream().mapToLong(value).max().orElse(0);
    }

    /** The sum, or {@code null} when any value is missing. */
    private static <T> @Nullable Long sumOrNull(List<T> items, Function<T, ? extends @Nullable Number> value) {
        long total = 0;
        for (T item : items) {
            Number number = value.apply(item);
            if (number == null) {
                return null;
            }
            total += number.longValue();
        }
        return total;
    }
}
