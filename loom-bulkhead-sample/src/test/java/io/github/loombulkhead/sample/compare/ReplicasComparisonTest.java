package io.github.loombulkhead.sample.compare;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.loombulkhead.sample.LoomBulkheadSampleApplication;
import io.github.loombulkhead.sample.report.Chromium;
import io.github.loombulkhead.sample.report.ReplicaReport;
import io.github.loombulkhead.sample.report.Report;
import io.github.loombulkhead.sample.report.ReportPage;
import io.github.loombulkhead.sample.report.ReportWriter;
import io.github.loombulkhead.sample.report.RunReport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the comparison with two replicas (caller JVMs of the test class path) against one callee JVM, with the
 * redis-server the comparison starts itself: 41 requests (21 + 20) per mode, limit 4, callee with 200 workers
 * answering in 300 ms, read timeout 10 s, so that every call succeeds and only the bound differs. Per process,
 * two replicas of limit 4 have up to 8 calls served at once; through Redis, never more than 4.
 */
class ReplicasComparisonTest {

    static final int REQUESTS = 41;

    static final int LIMIT = 4;

    /**
     * Marks the replicas' JVMs among this JVM's children. A JVM option, so it comes before the class path on their
     * command lines, which Linux cuts off after 4,096 characters: their {@code --loom.sample.*} arguments come after
     * the class path and are not seen.
     */
    static final String REPLICA_MARKER = "-Dreplicas-comparison-test=replica";

    @TempDir
    static Path reportDir;

    private static ConfigurableApplicationContext context;

    private static Report report;

    private static Map<String, RunReport> runs;

    @BeforeAll
    static void runComparison() {
        context = new SpringApplicationBuilder(LoomBulkheadSampleApplication.class).run("--loom.sample.run=compare",
                "--loom.sample.replicas=2", "--loom.sample.requests=" + REQUESTS, "--loom.sample.limit=" + LIMIT,
                "--loom.sample.callee.latency=300ms", "--loom.sample.read-timeout=10s",
                "--loom.sample.connect-timeout=2s", "--loom.sample.warmup-requests=20",
                "--loom.sample.sample-interval=50ms", "--loom.sample.modes=loom-bulkhead,loom-bulkhead-cluster",
                "--loom.sample.replica.jvm-arguments=-Xmx256m,-XX:TieredStopAtLevel=1," + REPLICA_MARKER,
                "--loom.sample.progress=false", "--loom.sample.report-dir=" + reportDir);
        report = new ReportWriter().read(reportDir.resolve("report.json"));
        runs = report.runs().stream().collect(Collectors.toMap(RunReport::mode, Function.identity()));
    }

    @AfterAll
    static void close() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void everyRequestIsAccountedForInTheTotalsAndInTheReplicas() {
        assertThat(report.scenario().replicas()).isEqualTo(2);
        assertThat(report.scenario().requests()).isEqualTo(REQUESTS);
        assertThat(report.runs()).extracting(RunReport::mode).containsExactly("loom-bulkhead", "loom-bulkhead-cluster");
        for (RunReport run : report.runs()) {
            List<ReplicaReport> replicas = Objects.requireNonNull(run.replicas());
            assertThat(replicas).extracting(ReplicaReport::replica).containsExactly(0, 1);
            assertThat(replicas).as(run.mode() + ": 41 split as 21 + 20")
                .extracting(ReplicaReport::requests)
                .containsExactly(21, 20);
            assertThat(run.requests()).isEqualTo(REQUESTS);
            assertThat(run.succeeded()).as(run.mode() + ": nothing times out or is rejected").isEqualTo(REQUESTS);
            assertThat(run.failed()).isZero();
            assertThat(run.succeeded() + run.failed()).isEqualTo(run.requests());
            assertThat(replicas.stream().mapToInt(ReplicaReport::succeeded).sum()).isEqualTo(run.succeeded());
            assertThat(replicas.stream().mapToInt(ReplicaReport::failed).sum()).isEqualTo(run.failed());
            for (ReplicaReport replica : replicas) {
                assertThat(replica.succeeded() + replica.failed()).isEqualTo(replica.requests());
                assertThat(replica.timeline()).isNotEmpty();
                assertThat(replica.timeline().get(replica.timeline().size() - 1).completed())
                    .isEqualTo(replica.requests());
            }
            assertThat(run.timeline().get(run.timeline().size() - 1).completed()).isEqualTo(REQUESTS);
        }
    }

    @Test
    void clusterBoundHoldsAtTheCalleeWhilePerProcessLimitsMultiply() {
        RunReport perProcess = runs.get("loom-bulkhead");
        RunReport cluster = runs.get("loom-bulkhead-cluster");
        assertThat(cluster.calleePeakInFlight()).as("served at once by the callee, cluster bound")
            .isBetween(1, LIMIT);
        assertThat(perProcess.calleePeakInFlight()).as("served at once by the callee, limit per replica")
            .isGreaterThan(LIMIT)
            .isLessThanOrEqualTo(2 * LIMIT);
    }

    @Test
    void redisAndTheReplicasAreStoppedAfterwards() {
        assertThat(leftBehind()).isEmpty();
        assertThat(reportDir.resolve("redis.log")).exists();
    }

    /** The command lines of this JVM's live descendants that are a redis-server or a replica of this test. */
    static List<String> leftBehind() {
        return ProcessHandle.current()
            .descendants()
            .filter(ProcessHandle::isAlive)
            .map((p) -> p.info().commandLine().orElse(""))
            .filter((command) -> command.contains("redis-server") || command.contains(REPLICA_MARKER))
            .toList();
    }

    @Test
    void reportShowsThePerReplicaChart() throws Exception {
        assertThat(Files.readString(reportDir.resolve("report.md"))).contains("shared by 2 replicas")
            .contains("Replicas:")
            .contains("| loom-bulkhead-cluster | all | 41 | 41 | 0 | 100.0 % |");
        try (Chromium chromium = Chromium.start(reportDir.resolve("chromium-profile"))) {
            ReportPage.open(chromium, reportDir.resolve("report.html")).assertMatches(report);
        }
    }
}
