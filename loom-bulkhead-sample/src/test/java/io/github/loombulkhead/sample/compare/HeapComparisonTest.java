package io.github.loombulkhead.sample.compare;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.loombulkhead.sample.LoomBulkheadSampleApplication;
import io.github.loombulkhead.sample.report.Report;
import io.github.loombulkhead.sample.report.ReportWriter;
import io.github.loombulkhead.sample.report.RunReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The heap that waiting tasks hold, at a scale where it stands out of the noise. A parked virtual thread
 * keeps its stack on the heap (about 1-2.5 KB here) while a task queued in a loom bulkhead is a small
 * object; but the first wave of calls in flight holds several MB (connections, buffers) whatever the mode,
 * and that varies by a few hundred KB from run to run. With 100 waiting tasks the difference drowns; with
 * 2,900 it is several MB. Short calls (100 ms, 30 waves) keep each mode to about 3 s.
 */
class HeapComparisonTest {

    static final int REQUESTS = 3_000;

    static final int LIMIT = 100;

    @TempDir
    Path reportDir;

    @Test
    void waitingTasksHoldLessHeapInALoomBulkheadThanAsParkedVirtualThreads() {
        Report report;
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(LoomBulkheadSampleApplication.class)
            .run("--loom.sample.run=compare", "--loom.sample.requests=" + REQUESTS, "--loom.sample.limit=" + LIMIT,
                    "--loom.sample.callee.capacity=200", "--loom.sample.callee.latency=100ms",
                    "--loom.sample.read-timeout=5s", "--loom.sample.connect-timeout=5s",
                    "--loom.sample.modes=virtual-semaphore,loom-bulkhead,resilience4j-bulkhead",
                    "--loom.sample.warmup-requests=300", "--loom.sample.progress=false",
                    "--loom.sample.report-dir=" + this.reportDir)) {
            report = new ReportWriter().read(this.reportDir.resolve("report.json"));
        }
        Map<String, RunReport> runs = report.runs()
            .stream()
            .collect(Collectors.toMap(RunReport::mode, Function.identity()));
        RunReport bulkhead = runs.get("loom-bulkhead");
        long waiting = REQUESTS - LIMIT;
        long atLeast = waiting * 512;
        for (String parking : new String[] { "virtual-semaphore", "resilience4j-bulkhead" }) {
            RunReport run = runs.get(parking);
            assertThat(run.succeeded()).as(parking).isEqualTo(REQUESTS);
            assertThat(run.peakVirtualThreads()).as(parking + ": parked virtual threads").isGreaterThan(REQUESTS / 2);
            assertThat(run.retainedHeapBytes() - bulkhead.retainedHeapBytes())
                .as("heap held by " + parking + " minus loom-bulkhead, for " + waiting + " waiting tasks")
                .isGreaterThan(atLeast);
        }
        assertThat(bulkhead.succeeded()).isEqualTo(REQUESTS);
        assertThat(bulkhead.peakVirtualThreads()).isLessThanOrEqualTo(LIMIT);
    }
}
