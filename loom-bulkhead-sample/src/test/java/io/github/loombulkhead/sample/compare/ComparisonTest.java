package io.github.loombulkhead.sample.compare;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import io.github.loombulkhead.sample.LoomBulkheadSampleApplication;
import io.github.loombulkhead.sample.Mode;
import io.github.loombulkhead.sample.SampleProperties;
import io.github.loombulkhead.sample.Scenario;
import io.github.loombulkhead.sample.client.CalleeEndpoint;
import io.github.loombulkhead.sample.launch.ManagedCallee;
import io.github.loombulkhead.sample.report.Chromium;
import io.github.loombulkhead.sample.report.Report;
import io.github.loombulkhead.sample.report.ReportPage;
import io.github.loombulkhead.sample.report.ReportWriter;
import io.github.loombulkhead.sample.report.RunReport;
import io.github.loombulkhead.sample.report.TimelinePoint;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runs the whole comparison once on a scaled-down scenario (real callee JVM, real HTTP, this JVM as the
 * caller with native memory tracking on) and checks what the report shows, not how long it took.
 * <p>
 * Scenario: 450 requests, limit 90, callee with 100 workers answering in 800 ms, read timeout 1.3 s. The
 * modes with a fixed limit never have more calls at the callee than it has workers, so every call succeeds with
 * 500 ms to spare (the adaptive modes find their own limit; only its ceiling is checked here); unbounded, 450 calls reach it at once, the first 100 are served in time and the next wave would
 * finish at 1.6 s, past the read timeout: about 100 / 450. The connect timeout is raised to 2 s so that a
 * busy build machine does not turn slow connects into failures.
 * <p>
 * What depends on the machine keeping time (every call of a bounded mode served within the read timeout, the unbounded
 * mode's share of calls served in time, one mode's duration against another's) is asserted on the first of up to three
 * runs of that mode that kept it; what a mode guarantees whatever the machine does, on every run.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ComparisonTest {

    static final int REQUESTS = 450;

    static final int LIMIT = 90;

    /** JVM threads alive when a mode starts that may end before its peak (compiler threads, added and removed). */
    private static final int JVM_THREADS_THAT_MAY_END = 4;

    static final int CAPACITY = 100;

    @TempDir
    static Path reportDir;

    private static ConfigurableApplicationContext context;

    private static Report report;

    private static Map<String, RunReport> runs;

    private static long calleePid;

    /**
     * How often a mode whose numbers depend on the machine keeping time runs again: with 500 ms between the callee's
     * latency and the read timeout, a machine that stalls the callee or this JVM for longer (a loaded build machine:
     * 11.5 s instead of 4.5 s for a bounded mode's five waves, 11 calls failed) fails calls that the callee would have
     * served in time, and it spreads out the requests that are meant to reach the callee at once (203 of the
     * unbounded mode's 450 succeeded).
     */
    private static final int RERUNS = 2;

    private static ModeRunner.RunSettings settings;

    /** Every run of a mode, the report's first: reruns are added as they are needed. */
    private static final Map<String, List<RunReport>> allRuns = new HashMap<>();

    @BeforeAll
    static void runComparison() {
        context = new SpringApplicationBuilder(LoomBulkheadSampleApplication.class).run(
                "--loom.sample.run=compare", "--loom.sample.requests=" + REQUESTS, "--loom.sample.limit=" + LIMIT,
                "--loom.sample.callee.capacity=" + CAPACITY, "--loom.sample.callee.latency=800ms",
                "--loom.sample.read-timeout=1300ms", "--loom.sample.connect-timeout=2s",
                "--loom.sample.warmup-requests=140", "--loom.sample.progress=false",
                "--loom.sample.report-dir=" + reportDir);
        ManagedCallee callee = context.getBean(CalleeEndpoint.class).managed();
        assertThat(callee).isNotNull();
        calleePid = callee.pid();
        report = new ReportWriter().read(reportDir.resolve("report.json"));
        runs = report.runs().stream().collect(Collectors.toMap(RunReport::mode, Function.identity()));
        Scenario scenario = context.getBean(Scenario.class);
        settings = new ModeRunner.RunSettings(scenario.requests(), scenario.limit(), scenario.modeDeadline(),
                context.getBean(SampleProperties.class).retainedHeap(), scenario.capacitySchedule(),
                scenario.calleeLatency(), true);
        report.runs().forEach((run) -> allRuns.put(run.mode(), new ArrayList<>(List.of(run))));
    }

    /**
     * The report's run of {@code mode} if {@code onTime} holds for it; otherwise the first of up to {@value #RERUNS}
     * runs of the mode alone for which it holds, or the last of them. What a mode guarantees whatever the machine does
     * is asserted on every one of its runs ({@link #allRuns}).
     */
    private static RunReport firstOnTime(Mode mode, Predicate<RunReport> onTime) {
        List<RunReport> all = allRuns.get(mode.id());
        for (int i = 0; i <= RERUNS; i++) {
            if (i == all.size()) {
                System.out.println(mode.id() + " runs again, as the machine may not have kept time; " + runsOf(mode));
                all.add(context.getBean(ModeRunner.class).run(mode, settings, (point) -> {
                }));
            }
            if (onTime.test(all.get(i))) {
                return all.get(i);
            }
        }
        return all.get(RERUNS);
    }

    /** The runs of {@code mode} so far, in a few words each. */
    private static String runsOf(Mode mode) {
        return allRuns.get(mode.id()).stream()
            .map((run) -> run.succeeded() + " succeeded in " + run.durationMs() + " ms")
            .collect(Collectors.joining("; ", "runs: ", ""));
    }

    @AfterAll
    static void close() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void reportDescribesTheScenarioAndEveryModeInOrder() {
        assertThat(report.scenario().requests()).isEqualTo(REQUESTS);
        assertThat(report.scenario().limit()).isEqualTo(LIMIT);
        assertThat(report.scenario().calleeCapacity()).isEqualTo(CAPACITY);
        assertThat(report.scenario().calleeLatencyMs()).isEqualTo(800);
        assertThat(report.scenario().readTimeoutMs()).isEqualTo(1300);
        assertThat(report.scenario().javaVersion()).isEqualTo(System.getProperty("java.version"));
        assertThat(report.scenario().cpus()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(report.scenario().nativeMemoryTracking()).isTrue();
        assertThat(report.runs()).extracting(RunReport::mode).containsExactlyElementsOf(Mode.defaultIds());
        for (RunReport run : report.runs()) {
            assertThat(run.requests()).isEqualTo(REQUESTS);
            assertThat(run.succeeded() + run.failed()).as(run.mode()).isEqualTo(REQUESTS);
            RunReport.Failures f = run.failures();
            assertThat(f.readTimeout() + f.connect() + f.rejected() + f.other()).as(run.mode()).isEqualTo(run.failed());
            assertThat(run.successRate()).isEqualTo((double) run.succeeded() / REQUESTS);
            assertThat(run.p50Ms()).isPositive().isLessThanOrEqualTo(run.p99Ms());
            assertThat(run.p99Ms()).isLessThanOrEqualTo(run.durationMs());
            List<TimelinePoint> timeline = run.timeline();
            assertThat(timeline).as(run.mode() + " timeline").hasSizeGreaterThan(3);
            assertThat(timeline.get(timeline.size() - 1).completed()).isEqualTo(REQUESTS);
            assertThat(timeline).extracting(TimelinePoint::elapsedMs).isSorted();
            assertThat(timeline).extracting(TimelinePoint::completed).isSorted();
            assertThat(run.threadStackReservedDeltaBytes()).as(run.mode()).isNotNull();
            assertThat(run.littlesLawBoundMs()).as("450 / 100 × 800 ms").isEqualTo(3_600);
            if (run.mode().equals("virtual-unbounded")) {
                assertThat(run.retainedHeapBytes()).as("not paused to probe the heap").isNull();
                assertThat(timeline).extracting(TimelinePoint::limit).as("no limit").containsOnlyNulls();
            }
            else {
                assertThat(run.retainedHeapBytes()).as(run.mode()).isNotNull().isPositive();
            }
        }
    }

    @Test
    void boundedModesSucceedCompletelyBelowTheCalleesCapacity() {
        for (Mode mode : List.of(Mode.THREAD_POOL, Mode.VIRTUAL_SEMAPHORE, Mode.LOOM_BULKHEAD, Mode.LOOM_BULKHEAD_HTTP,
                Mode.SPRING_CONCURRENCY_LIMIT, Mode.RESILIENCE4J_BULKHEAD)) {
            RunReport run = firstOnTime(mode, (each) -> each.succeeded() == REQUESTS);
            assertThat(run.succeeded()).as(mode + " succeeded; " + runsOf(mode)).isEqualTo(REQUESTS);
            for (RunReport each : allRuns.get(mode.id())) {
                assertThat(each.peakInFlight()).as(mode + " calls at the callee at once").isLessThanOrEqualTo(LIMIT);
                assertThat(each.failures().rejected()).as(mode + " rejected").isZero();
            }
        }
    }

    @Test
    void everyBoundedModesLimitIsSampledTheStaticOnesAtTheirLimitTheAdaptiveOnesBelowTheCeiling() {
        for (Mode mode : List.of(Mode.THREAD_POOL, Mode.VIRTUAL_SEMAPHORE, Mode.LOOM_BULKHEAD, Mode.LOOM_BULKHEAD_HTTP,
                Mode.SPRING_CONCURRENCY_LIMIT, Mode.RESILIENCE4J_BULKHEAD)) {
            assertThat(runs.get(mode.id()).timeline()).extracting(TimelinePoint::limit).as(mode + " limit")
                .containsOnly(LIMIT);
        }
        for (Mode mode : Mode.defaults().stream().filter(Mode::isAdaptive).toList()) {
            assertThat(runs.get(mode.id()).timeline()).extracting(TimelinePoint::limit).as(mode + " limit")
                .doesNotContainNull()
                .allSatisfy((limit) -> assertThat(limit).isBetween(1, report.scenario().adaptiveMaxLimit()));
        }
    }

    @Test
    void unboundedVirtualThreadsOverwhelmTheCalleeAndMostCallsTimeOut() {
        double expected = (double) CAPACITY / REQUESTS;
        // Only if the requests reach the callee within 300 ms of each other (a loaded machine spreads them out more).
        RunReport unbounded = firstOnTime(Mode.VIRTUAL_UNBOUNDED,
                (each) -> each.successRate() >= expected * 0.5 && each.successRate() <= expected * 1.5);
        assertThat(unbounded.successRate())
            .as("success rate, expected about " + expected + "; " + runsOf(Mode.VIRTUAL_UNBOUNDED))
            .isBetween(expected * 0.5, expected * 1.5);
        assertThat(unbounded.failures().readTimeout()).as("read timeouts")
            .isGreaterThanOrEqualTo(unbounded.failed() * 9 / 10);
        assertThat(unbounded.peakInFlight()).as("calls at the callee at once").isGreaterThan(CAPACITY);
        assertThat(unbounded.peakVirtualThreads()).isGreaterThan(CAPACITY);
    }

    @Test
    void loomBulkheadNeedsNeitherAThreadPerPermitNorAThreadPerWaitingTask() {
        // The heap its waiting tasks save is asserted at a larger scale in HeapComparisonTest.
        RunReport pool = runs.get("thread-pool");
        RunReport semaphore = runs.get("virtual-semaphore");
        RunReport bulkhead = runs.get("loom-bulkhead");
        // A count of the whole JVM: threads of its own (compiler threads come and go) may end during the mode.
        assertThat(pool.peakPlatformThreads() - pool.baselinePlatformThreads()).as("thread-pool: new platform threads")
            .isGreaterThanOrEqualTo(LIMIT - JVM_THREADS_THAT_MAY_END);
        assertThat(bulkhead.peakPlatformThreads()).as("loom-bulkhead peak platform threads")
            .isLessThan(pool.peakPlatformThreads());
        assertThat(bulkhead.peakPlatformThreads() - bulkhead.baselinePlatformThreads())
            .as("loom-bulkhead: new platform threads (carriers at most)")
            .isLessThan(LIMIT / 4);
        assertThat(pool.threadStackReservedDeltaBytes()).as("thread-pool: thread stacks reserved")
            .isGreaterThanOrEqualTo(LIMIT * 512L * 1024);
        assertThat(bulkhead.threadStackReservedDeltaBytes()).as("loom-bulkhead: thread stacks reserved")
            .isLessThan(pool.threadStackReservedDeltaBytes() / 4);
        assertThat(pool.peakVirtualThreads()).isZero();
        assertThat(bulkhead.peakVirtualThreads()).as("loom-bulkhead: virtual threads at once").isLessThanOrEqualTo(LIMIT);
        assertThat(semaphore.peakVirtualThreads()).as("virtual-semaphore: virtual threads at once")
            .isGreaterThan(2 * LIMIT);
        // Same callee, same number of waves: within noise of each other (the bound is generous on purpose).
        RunReport timed = firstOnTime(Mode.LOOM_BULKHEAD, (each) -> each.durationMs() < pool.durationMs() * 3 / 2);
        assertThat(timed.durationMs()).as("loom-bulkhead duration vs thread-pool's %d ms; %s",
                pool.durationMs(), runsOf(Mode.LOOM_BULKHEAD)).isLessThan(pool.durationMs() * 3 / 2);
    }

    @Test
    void reportFilesAreWrittenAndThePageShowsTheSameNumbers() throws Exception {
        assertThat(Files.readString(reportDir.resolve("report.md")))
            .contains("| mode | duration | Little's-law bound | bound / duration | succeeded | failed |")
            .contains(Mode.defaultIds());
        try (Chromium chromium = Chromium.start(reportDir.resolve("chromium-profile"))) {
            ReportPage.open(chromium, reportDir.resolve("report.html")).assertMatches(report);
        }
    }

    @Test
    @Order(Integer.MAX_VALUE) // Last: it closes the application, which runs the modes again where needed.
    void calleeProcessEndsWithTheCaller() {
        assertThat(ProcessHandle.of(calleePid)).as("callee running during the comparison").isPresent();
        ConfigurableApplicationContext running = context;
        context = null;
        running.close();
        await().until(() -> ProcessHandle.of(calleePid).map((p) -> !p.isAlive()).orElse(true));
    }
}
