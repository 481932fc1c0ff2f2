package io.github.loombulkhead.sample.report;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

import io.github.loombulkhead.sample.CapacityChange;
import org.jspecify.annotations.Nullable;

/** Reports with known numbers, for rendering tests. */
final class SampleReports {

    /** The Little's-law bound of the scenarios below without capacity changes: 1,000 / 200 × 300 ms. */
    static final long BOUND_MS = 1_500;

    private SampleReports() {
    }

    static Report threeModes() {
        return new Report(scenario(List.of("thread-pool", "virtual-unbounded", "loom-bulkhead"), List.of(), BOUND_MS),
                List.of(run("thread-pool", 1_000, 0, 3_120, BOUND_MS, 131, 31, 0, 104_857_600L,
                        timeline(32, 1_000, 100, 131, 0, 0, (i) -> 100)),
                        run("virtual-unbounded", 200, 800, 520, BOUND_MS, 32, 31, 1_000, 0L,
                                timeline(6, 1_000, 1_000, 32, 1_000, 0, (i) -> null)),
                        run("loom-bulkhead", 1_000, 0, 3_050, BOUND_MS, 33, 31, 100, 1_048_576L,
                                timeline(31, 1_000, 100, 33, 100, 1, (i) -> 100))));
    }

    /**
     * A static mode and the adaptive one while the callee's capacity drops from 200 to 60 at 1 s and comes back
     * at 2.5 s (bound: the drop is complete one latency later, so 866.7 requests by 1.3 s, the last 133.3 at 60
     * workers in 666.7 ms: 1,967 ms).
     * The adaptive limit starts at 20, climbs, falls below the dip and climbs again.
     */
    static Report adaptive() {
        List<CapacityChange> changes = List.of(new CapacityChange(60, 1_000), new CapacityChange(200, 2_500));
        int[] limits = { 20, 40, 80, 160, 190, 180, 150, 90, 70, 60, 55, 60, 70, 70, 80, 60, 60, 60, 60, 60, 60, 60,
                60, 60, 90, 130, 170, 190, 195, 200, 200, 200, 200, 200, 200 };
        long bound = 1_967;
        return new Report(scenario(List.of("thread-pool", "loom-bulkhead-adaptive"), changes, bound),
                List.of(run("thread-pool", 1_000, 0, 3_420, bound, 131, 31, 0, 104_857_600L,
                        timeline(34, 1_000, 100, 131, 0, 1, (i) -> 100)),
                        run("loom-bulkhead-adaptive", 998, 2, 3_500, bound, 31, 31, 1_000, 0L,
                                timeline(limits.length, 1_000, 190, 31, 1_000, 0, (i) -> limits[i - 1]))));
    }

    /**
     * Two modes run by three replicas of 334 + 333 + 333 requests with limit 100 each: per process, the replicas
     * together reach 300 calls in flight and some fail; shared, they stay at 100.
     */
    static Report replicated() {
        ScenarioReport one = scenario(List.of("loom-bulkhead", "loom-bulkhead-cluster"), List.of(), BOUND_MS);
        ScenarioReport scenario = new ScenarioReport(one.requests(), one.limit(), one.calleeCapacity(),
                one.calleeLatencyMs(), one.readTimeoutMs(), one.javaVersion(), one.cpus(), one.connectTimeoutMs(),
                one.scale(), one.modes(), one.maxHeapBytes(), one.warmupRequests(), one.sampleIntervalMs(),
                one.nativeMemoryTracking(), one.retainedHeap(), one.jvm(), one.os(), one.startedAt(), one.loadAverage(),
                one.adaptiveMaxLimit(), one.adaptiveAlgorithm(), one.capacityChanges(), one.littlesLawBoundMs(), 3);
        int[] shares = { 334, 333, 333 };
        List<RunReport> perProcess = new ArrayList<>();
        List<RunReport> shared = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int failed = 20 + i;
            perProcess.add(run("loom-bulkhead", shares[i] - failed, failed, 2_000 + i * 10, BOUND_MS, 33, 31, 100, 0L,
                    timeline(20 + i, shares[i], 100, 33, 100, 0, (p) -> 100)));
            shared.add(run("loom-bulkhead-cluster", shares[i], 0, 1_600 + i * 10, BOUND_MS, 33, 31, 334, 0L,
                    timeline(16 + i, shares[i], 34, 33, 334, 0, (p) -> 33)));
        }
        return new Report(scenario, List.of(ReplicaTotals.of(perProcess, BOUND_MS, 200),
                ReplicaTotals.of(shared, BOUND_MS, 100)));
    }

    /** A report whose runs measured no thread-stack memory (native memory tracking off). */
    static Report withoutNativeMemory() {
        Report report = threeModes();
        List<RunReport> runs = report.runs()
            .stream()
            .map((r) -> new RunReport(r.mode(), r.requests(), r.succeeded(), r.failed(), r.failures(), r.successRate(),
                    r.durationMs(), r.littlesLawBoundMs(), r.littlesLawEfficiency(), r.p50Ms(), r.p99Ms(),
                    r.peakPlatformThreads(), r.baselinePlatformThreads(), r.peakVirtualThreads(), r.peakInFlight(),
                    r.peakHeapUsedBytes(), r.baselineHeapUsedBytes(), null, 0, null, null, null, r.gcCount(),
                    r.gcTimeMs(), r.cpuTimeMs(),
                    r.timeline()
                        .stream()
                        .map((p) -> new TimelinePoint(p.elapsedMs(), p.completed(), p.inFlight(), p.waiting(),
                                p.platformThreads(), p.virtualThreads(), p.heapUsedBytes(), null, p.limit()))
                        .toList()))
            .toList();
        return new Report(report.scenario(), runs);
    }

    private static ScenarioReport scenario(List<String> modes, List<CapacityChange> changes, long boundMs) {
        return new ScenarioReport(1_000, 100, 200, 300, 500, "25.0.3", 2, 500, "default", modes, 1_073_741_824L, 500,
                100, true, true, "OpenJDK 64-Bit Server VM 25.0.3+9", "Linux 6.1 amd64", "2026-01-01T00:00:00Z", 0.42,
                1_000, modes.contains("loom-bulkhead-adaptive") ? "gradient" : null, changes, boundMs);
    }

    private static RunReport run(String mode, int succeeded, int failed, long durationMs, long boundMs,
            int peakThreads, int baselineThreads, int peakVirtual, long stackDelta, List<TimelinePoint> timeline) {
        int requests = succeeded + failed;
        return new RunReport(mode, requests, succeeded, failed, new RunReport.Failures(failed, 0, 0, 0),
                (double) succeeded / requests, durationMs, boundMs, (double) boundMs / durationMs, durationMs / 2,
                durationMs - 20, peakThreads, baselineThreads, peakVirtual,
                Math.min(peakVirtual == 0 ? 100 : peakVirtual, 1_000), 73_400_320L + peakVirtual * 1_000L, 30_000_000L,
                2_500_000L + peakVirtual * 900L, 12L, stackDelta, stackDelta / 20, (long) (peakThreads - baselineThreads),
                2, 15, 900, timeline);
    }

    /**
     * A time series that rises to its peaks and comes back while {@code requests} end, with the stack measure on
     * every fifth point and the limit of point {@code i} (1-based) from {@code limit}.
     */
    private static List<TimelinePoint> timeline(int points, int requests, int inFlight, int threads, int virtual,
            int stackMb, IntFunction<@Nullable Integer> limit) {
        List<TimelinePoint> timeline = new ArrayList<>();
        for (int i = 1; i <= points; i++) {
            double phase = Math.sin(Math.PI * i / (points + 1));
            Long stack = (i % 5 == 0 || i == points) ? (long) (stackMb * 1_048_576L * phase * 100) : null;
            timeline.add(new TimelinePoint(i * 100L, requests * i / points, (int) (inFlight * phase),
                    (int) (900 * (1 - (double) i / points)), 31 + (int) ((threads - 31) * phase),
                    (int) (virtual * phase), 40_000_000L + (long) (30_000_000 * phase), stack, limit.apply(i)));
        }
        return timeline;
    }
}
