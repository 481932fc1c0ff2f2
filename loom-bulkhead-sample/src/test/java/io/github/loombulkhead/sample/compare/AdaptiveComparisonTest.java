package io.github.loombulkhead.sample.compare;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.sample.CapacityChange;
import io.github.loombulkhead.sample.LoomBulkheadSampleApplication;
import io.github.loombulkhead.sample.Mode;
import io.github.loombulkhead.sample.report.Chromium;
import io.github.loombulkhead.sample.report.Report;
import io.github.loombulkhead.sample.report.ReportPage;
import io.github.loombulkhead.sample.report.ReportWriter;
import io.github.loombulkhead.sample.report.RunReport;
import io.github.loombulkhead.sample.report.TimelinePoint;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Runs {@code loom-bulkhead-adaptive} and {@code netflix-aimd} on a small scenario whose callee shrinks during
 * each mode (real callee JVM, real HTTP) and checks what the report shows: the adaptive limit moves, never passes
 * the ceiling, and is drawn on the limit chart beside the callee's capacity; the Little's-law bound follows the
 * capacity change.
 * <p>
 * Scenario: 400 requests, callee with 40 workers answering in 200 ms, down to 20 workers 1 s after each mode
 * starts; adaptive ceiling 150. Bound: the drop is complete one latency later, so 240 requests by 1.2 s, the
 * other 160 at 20 per 200 ms: 2.8 s.
 * A read timeout of 5 s keeps the run about the limit, not about failures.
 */
class AdaptiveComparisonTest {

    static final int REQUESTS = 400;

    static final int MAX_LIMIT = 150;

    @TempDir
    static Path reportDir;

    private static Report report;

    private static Map<String, RunReport> runs;

    /** Both, but the Netflix one only where it can run (JDK 24+). */
    private static final String MODES = Mode.NETFLIX_AIMD.whyNotOn(Runtime.version().feature()).isEmpty()
            ? "loom-bulkhead-adaptive,netflix-aimd" : "loom-bulkhead-adaptive";

    @BeforeAll
    static void runComparison() {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(LoomBulkheadSampleApplication.class)
            .run("--loom.sample.run=compare", "--loom.sample.requests=" + REQUESTS, "--loom.sample.callee.capacity=40",
                    "--loom.sample.callee.latency=200ms", "--loom.sample.callee.capacity-changes=20@1s",
                    "--loom.sample.adaptive.max-limit=" + MAX_LIMIT, "--loom.sample.read-timeout=5s",
                    "--loom.sample.connect-timeout=2s", "--loom.sample.modes=" + MODES,
                    "--loom.sample.warmup-requests=100", "--loom.sample.progress=false",
                    "--loom.sample.report-dir=" + reportDir)) {
            report = new ReportWriter().read(reportDir.resolve("report.json"));
        }
        runs = report.runs().stream().collect(Collectors.toMap(RunReport::mode, Function.identity()));
    }

    @Test
    void adaptiveLimitMovesFromTheAlgorithmsInitialLimit() {
        RunReport run = runs.get("loom-bulkhead-adaptive");
        List<Integer> limits = limits(run);
        assertThat(limits).as("a limit on every point").hasSize(run.timeline().size());
        assertThat(limits.stream().distinct().count()).as("different limits in " + limits).isGreaterThan(1);
        // 40 workers, then 20, queue the initial 100 calls: the algorithm brings the limit down toward them.
        assertThat(limits.get(0)).as("first limit in " + limits).isEqualTo(AdaptiveLimitConfig.DEFAULT_INITIAL_LIMIT);
        assertThat(limits.stream().mapToInt(Integer::intValue).min().orElseThrow()).as("lowest limit in " + limits)
            .isLessThan(AdaptiveLimitConfig.DEFAULT_INITIAL_LIMIT / 2);
    }

    @Test
    void everyCallEndsAndTheCeilingHoldsInEveryAdaptiveMode() {
        for (RunReport run : report.runs()) {
            assertThat(run.succeeded() + run.failed()).as(run.mode()).isEqualTo(REQUESTS);
            assertThat(limits(run)).as(run.mode() + " limits").isNotEmpty().allSatisfy((limit) ->
                    assertThat(limit).isBetween(1, MAX_LIMIT));
        }
    }

    @Test
    void boundFollowsTheCapacityChangeAndTheCalleeChangedItsWorkers() throws Exception {
        assertThat(report.scenario().capacityChanges()).containsExactly(new CapacityChange(20, 1_000));
        assertThat(report.scenario().adaptiveMaxLimit()).isEqualTo(MAX_LIMIT);
        assertThat(report.scenario().adaptiveAlgorithm()).isEqualTo(AdaptiveLimitConfig.DEFAULT_ALGORITHM.getName());
        assertThat(report.scenario().littlesLawBoundMs()).isEqualTo(2_800);
        for (RunReport run : report.runs()) {
            assertThat(run.littlesLawBoundMs()).isEqualTo(2_800);
            assertThat(run.littlesLawEfficiency()).isCloseTo(2_800.0 / run.durationMs(), within(0.01));
        }
        // Each mode handed the callee the schedule once; the callee applied its one change each time.
        String calleeLog = Files.readString(reportDir.resolve("callee.log"));
        assertThat(calleeLog.split("Capacity changed to 20 workers \\(1000 ms after the schedule arrived\\)", -1))
            .hasSize(report.runs().size() + 1);
        assertThat(Files.readString(reportDir.resolve("report.md"))).contains("then 20 from 1.00 s")
            .contains("Little's-law bound 2.80 s");
    }

    @Test
    void reportPageDrawsTheAdaptiveLimitOnTheLimitChart() {
        try (Chromium chromium = Chromium.start(reportDir.resolve("chromium-profile"))) {
            ReportPage.open(chromium, reportDir.resolve("report.html")).assertMatches(report);
            WebElement line = chromium.driver()
                .findElement(By.cssSelector("#charts figure[data-measure='limit'] path[data-mode='loom-bulkhead-adaptive']"));
            List<Integer> limits = limits(runs.get("loom-bulkhead-adaptive"));
            assertThat(line.getAttribute("data-points")).isEqualTo(String.valueOf(limits.size()));
            assertThat(Double.parseDouble(line.getAttribute("data-max")))
                .isEqualTo(limits.stream().mapToInt(Integer::intValue).max().orElseThrow());
        }
    }

    private static List<Integer> limits(RunReport run) {
        return run.timeline().stream().map(TimelinePoint::limit).filter(Objects::nonNull).toList();
    }
}
