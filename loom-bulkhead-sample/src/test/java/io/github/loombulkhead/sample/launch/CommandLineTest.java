package io.github.loombulkhead.sample.launch;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.loombulkhead.sample.SampleArgumentException;
import io.github.loombulkhead.sample.report.Report;
import io.github.loombulkhead.sample.report.ReportWriter;
import io.github.loombulkhead.sample.report.RunReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample as a user runs it, in its own JVM: exit code 0 when the comparison ran, a non-zero code and a
 * message naming the problem when it could not, and never a callee left behind.
 */
class CommandLineTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private static final List<String> NATIVE_MEMORY = List.of("-XX:NativeMemoryTracking=summary");

    /** A tiny scenario: two modes, a few requests, a short latency. */
    private static final List<String> SMALL = List.of("--loom.sample.requests=20",
            "--loom.sample.limit=5", "--loom.sample.callee.capacity=10", "--loom.sample.callee.latency=50ms",
            "--loom.sample.read-timeout=5s", "--loom.sample.connect-timeout=5s",
            "--loom.sample.modes=thread-pool,loom-bulkhead", "--loom.sample.warmup-requests=0",
            "--loom.sample.progress=false");

    @TempDir
    Path directory;

    @Test
    void negativeLimitIsRejectedWithItsNameAndValue() throws Exception {
        try (SampleProcess sample = SampleProcess.start(this.directory, NATIVE_MEMORY,
                List.of("--loom.sample.run=compare", "--loom.sample.limit=-1"))) {
            assertThat(sample.exitCode(TIMEOUT)).isEqualTo(SampleArgumentException.EXIT_CODE);
            assertThat(sample.output()).contains("loom.sample.limit must be at least 1, but was -1")
                .doesNotContain("Callee started");
        }
    }

    @Test
    void aMisspelledSettingIsRejectedNamingTheNearestOne() throws Exception {
        try (SampleProcess sample = SampleProcess.start(this.directory, NATIVE_MEMORY,
                List.of("--loom.sample.run=compare", "--loom.sample.reqests=4000"))) {
            assertThat(sample.exitCode(TIMEOUT)).as(sample.output()).isEqualTo(SampleArgumentException.EXIT_CODE);
            assertThat(sample.output()).contains("--loom.sample.reqests sets nothing: there is no such setting; did you "
                    + "mean --loom.sample.requests?")
                .doesNotContain("Callee started");
        }
    }

    @Test
    void unknownModeIsRejectedListingTheValidOnes() throws Exception {
        try (SampleProcess sample = SampleProcess.start(this.directory, NATIVE_MEMORY,
                List.of("--loom.sample.run=compare", "--loom.sample.modes=thread-pool,turbo"))) {
            assertThat(sample.exitCode(TIMEOUT)).isEqualTo(SampleArgumentException.EXIT_CODE);
            assertThat(sample.output()).contains("loom.sample.modes contains unknown mode 'turbo'")
                .contains("thread-pool, virtual-unbounded, virtual-semaphore, loom-bulkhead, loom-bulkhead-http, "
                        + "spring-concurrency-limit, resilience4j-bulkhead, loom-bulkhead-adaptive, netflix-gradient2, "
                        + "netflix-vegas, netflix-aimd");
        }
    }

    @Test
    void badServerComparisonSettingIsRejectedWithTheBadArgumentCode() throws Exception {
        try (SampleProcess sample = SampleProcess.start(this.directory, NATIVE_MEMORY,
                List.of("--loom.sample.run=server-compare", "--loom.sample.server.setups=virtual,turbo",
                        "--loom.sample.report-dir=" + this.directory.resolve("report")))) {
            assertThat(sample.exitCode(TIMEOUT)).as(sample.output()).isEqualTo(SampleArgumentException.EXIT_CODE);
            assertThat(sample.output()).contains("loom.sample.server.setups contains unknown setup 'turbo'; valid "
                    + "setups: tomcat-20,tomcat-50,virtual,virtual-parallel,virtual-bulkhead,virtual-inbound,"
                    + "virtual-inbound-shed")
                .doesNotContain("Callee started");
        }
        assertThat(this.directory.resolve("report").resolve("callee.log")).doesNotExist();
    }

    @Test
    void capacityChangesOutOfOrderAreRejectedNamingTheEntry() throws Exception {
        try (SampleProcess sample = SampleProcess.start(this.directory, NATIVE_MEMORY,
                List.of("--loom.sample.run=compare", "--loom.sample.callee.capacity-changes=60@2s,200@1s"))) {
            assertThat(sample.exitCode(TIMEOUT)).isEqualTo(SampleArgumentException.EXIT_CODE);
            assertThat(sample.output()).contains("loom.sample.callee.capacity-changes must list its changes in "
                    + "increasing time, but '200@1s' comes after 2000ms in '60@2s,200@1s'")
                .doesNotContain("Callee started");
        }
    }

    @Test
    void annotatedClientModeWithoutTheStarterIsRejectedBeforeAnythingRuns() throws Exception {
        try (SampleProcess sample = SampleProcess.start(this.directory, NATIVE_MEMORY,
                List.of("--loom.sample.run=compare", "--loom.bulkhead.enabled=false",
                        "--loom.sample.modes=thread-pool,loom-bulkhead-http",
                        "--loom.sample.report-dir=" + this.directory.resolve("report")))) {
            assertThat(sample.exitCode(TIMEOUT)).isEqualTo(SampleArgumentException.EXIT_CODE);
            assertThat(sample.output()).contains("APPLICATION FAILED TO START")
                .contains("loom.sample.modes contains loom-bulkhead-http, which cannot run")
                .contains("spring.threads.virtual.enabled=true")
                .doesNotContain("Callee started");
        }
    }

    @Test
    void annotatedClientModeWithoutTheStarterIsRejectedBeforeAnyReplicaStarts() throws Exception {
        Path reportDir = this.directory.resolve("report");
        try (SampleProcess sample = SampleProcess.start(this.directory, NATIVE_MEMORY,
                List.of("--loom.sample.run=compare", "--loom.sample.replicas=2", "--loom.bulkhead.enabled=false",
                        "--loom.sample.modes=loom-bulkhead-http", "--loom.sample.report-dir=" + reportDir))) {
            assertThat(sample.exitCode(TIMEOUT)).as(sample.output()).isEqualTo(SampleArgumentException.EXIT_CODE);
            assertThat(sample.output()).contains("APPLICATION FAILED TO START")
                .contains("loom.sample.modes contains loom-bulkhead-http, which cannot run")
                .contains("spring.threads.virtual.enabled=true")
                .doesNotContain("Callee started");
        }
        assertThat(reportDir.resolve("replica-0.log")).doesNotExist();
    }

    @Test
    void replicaThatEndsBeforeTheFirstModeCouldNotStart() throws Exception {
        List<String> arguments = new ArrayList<>(SMALL);
        arguments.addAll(List.of("--loom.sample.run=compare", "--loom.sample.replicas=2",
                "--loom.sample.replica.jvm-arguments=-XX:+NoSuchOptionAnywhere",
                "--loom.sample.report-dir=" + this.directory.resolve("report")));
        try (SampleProcess sample = SampleProcess.start(this.directory, NATIVE_MEMORY, arguments)) {
            assertThat(sample.exitCode(TIMEOUT)).as(sample.output()).isEqualTo(ProcessStartException.EXIT_CODE);
            assertThat(sample.output()).contains("APPLICATION FAILED TO START")
                .contains("The replicas did not become ready for the first mode, thread-pool: Replica ")
                .contains(" ended early, with exit code 1; last lines of its log ")
                .contains("Unrecognized VM option 'NoSuchOptionAnywhere'")
                .contains("--loom.sample.replica.jvm-arguments");
            assertThat(sample.handle().descendants()).as("processes left behind").isEmpty();
        }
    }

    @Test
    void takenCalleePortIsReported() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                SampleProcess sample = SampleProcess.start(this.directory, NATIVE_MEMORY,
                        List.of("--loom.sample.run=compare", "--loom.sample.callee.port=" + taken.getLocalPort(),
                                "--loom.sample.report-dir=" + this.directory.resolve("report")))) {
            assertThat(sample.exitCode(TIMEOUT)).isEqualTo(CalleeStartException.EXIT_CODE);
            assertThat(sample.output()).contains("APPLICATION FAILED TO START")
                .contains("Port " + taken.getLocalPort() + " on 127.0.0.1 is already in use")
                .contains("--loom.sample.callee.port");
        }
    }

    @Test
    void calleeThatCannotStartIsReportedWithItsOutput() throws Exception {
        try (SampleProcess sample = SampleProcess.start(this.directory, NATIVE_MEMORY,
                List.of("--loom.sample.run=compare", "--loom.sample.callee.jvm-arguments=-XX:+NoSuchOptionAnywhere",
                        "--loom.sample.report-dir=" + this.directory.resolve("report")))) {
            assertThat(sample.exitCode(TIMEOUT)).isEqualTo(CalleeStartException.EXIT_CODE);
            assertThat(sample.output()).contains("The callee process exited with code 1 before it became ready")
                .contains("Unrecognized VM option 'NoSuchOptionAnywhere'");
        }
    }

    /**
     * Started as {@code -Pcompare} starts it: the run switch in the environment (inherited by nothing else),
     * without native memory tracking, which the sample then switches on by restarting itself.
     */
    @Test
    void comparisonRestartsWithNativeMemoryTrackingRunsAndExitsZero() throws Exception {
        Path reportDir = this.directory.resolve("report");
        List<String> arguments = new ArrayList<>(SMALL);
        arguments.add("--loom.sample.report-dir=" + reportDir);
        try (SampleProcess sample = SampleProcess.start(this.directory, List.of(), arguments,
                Map.of("LOOM_SAMPLE_RUN", "compare"))) {
            assertThat(sample.exitCode(TIMEOUT)).as(sample.output()).isZero();
            assertThat(sample.output()).contains("Restarting with -XX:NativeMemoryTracking=summary")
                .contains("| mode ")
                .containsPattern("\\| loom-bulkhead +\\| .* \\| +20 \\|")
                .contains("report.html");
            assertThat(sample.handle().descendants()).as("processes left behind").isEmpty();
        }
        Report report = new ReportWriter().read(reportDir.resolve("report.json"));
        assertThat(report.scenario().nativeMemoryTracking()).isTrue();
        assertThat(report.runs()).extracting(RunReport::mode).containsExactly("thread-pool", "loom-bulkhead");
        assertThat(report.runs()).allSatisfy((run) -> {
            assertThat(run.succeeded()).isEqualTo(20);
            assertThat(run.threadStackReservedDeltaBytes()).isNotNull();
        });
    }

    @Test
    void ctrlCStopsTheCallee() throws Exception {
        try (SampleProcess sample = startLongComparison()) {
            ProcessHandle callee = awaitCallee(sample);
            sample.interrupt();
            sample.exitCode(TIMEOUT);
            await().atMost(Duration.ofSeconds(30)).until(() -> !callee.isAlive());
        }
    }

    @Test
    void calleeEndsByItselfWhenItsCallerIsKilled() throws Exception {
        try (SampleProcess sample = startLongComparison()) {
            ProcessHandle callee = awaitCallee(sample);
            sample.kill();
            await().atMost(Duration.ofSeconds(30)).until(() -> !callee.isAlive());
        }
    }

    /** A comparison whose single mode takes minutes: 10 requests of 10 minutes each. */
    private SampleProcess startLongComparison() {
        return SampleProcess.start(this.directory, NATIVE_MEMORY,
                List.of("--loom.sample.run=compare", "--loom.sample.requests=10", "--loom.sample.limit=5",
                        "--loom.sample.callee.latency=10m", "--loom.sample.read-timeout=20m",
                        "--loom.sample.modes=thread-pool", "--loom.sample.warmup-requests=0",
                        "--loom.sample.report-dir=" + this.directory.resolve("report")));
    }

    /** Waits until the comparison runs (its callee has started by then), and returns the callee process. */
    private static ProcessHandle awaitCallee(SampleProcess sample) {
        await().atMost(TIMEOUT).until(() -> sample.output().contains("loom-bulkhead comparison:"));
        Optional<ProcessHandle> callee = sample.handle().children().findFirst();
        assertThat(callee).as("callee process").isPresent();
        // The command line is cut short by the operating system after the class path; the JVM options come first.
        assertThat(callee.get().info().commandLine().orElse("")).contains("java").contains("-Xmx512m");
        return callee.get();
    }
}
