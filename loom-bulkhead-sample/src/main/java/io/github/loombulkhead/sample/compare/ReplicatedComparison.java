package io.github.loombulkhead.sample.compare;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import io.github.loombulkhead.sample.Mode;
import io.github.loombulkhead.sample.SampleProperties;
import io.github.loombulkhead.sample.Scenario;
import io.github.loombulkhead.sample.client.CalleeCalls;
import io.github.loombulkhead.sample.client.CalleeEndpoint;
import io.github.loombulkhead.sample.launch.LocalRedis;
import io.github.loombulkhead.sample.launch.ProcessStartException;
import io.github.loombulkhead.sample.launch.ReplicaProcess;
import io.github.loombulkhead.sample.report.ConsoleReport;
import io.github.loombulkhead.sample.report.Formats;
import io.github.loombulkhead.sample.report.ReplicaTotals;
import io.github.loombulkhead.sample.report.Report;
import io.github.loombulkhead.sample.report.ReportWriter;
import io.github.loombulkhead.sample.report.RunReport;
import io.github.loombulkhead.sample.report.ScenarioReport;
import org.jspecify.annotations.Nullable;

/**
 * The comparison with {@code loom.sample.replicas} above 1: starts the callee, a {@code redis-server} when
 * {@code loom-bulkhead-cluster} runs and {@code spring.data.redis.*} is not set, and one caller JVM per replica,
 * each with its share of the requests (the first {@code requests % replicas} replicas one more); starts every
 * mode in all replicas at the same moment, reads the callee's peak of requests in progress after each mode, and
 * writes one report with the totals and each replica's figures. Stops what it started, also on failure.
 */
public final class ReplicatedComparison {

    private final SampleProperties properties;

    private final Scenario scenario;

    private final CalleeEndpoint callee;

    private final CalleeCalls calls;

    private final ModeRunner runner;

    private final ReportWriter writer;

    private final PrintStream out;

    private final List<String> forwardedArguments;

    private final boolean redisConfigured;

    /**
     * @param runner this application's runner, which checks up front that the replicas, with the same settings, can
     * run every mode
     * @param forwardedArguments the command line's settings other than {@code loom.sample.*} (e.g.
     * {@code --loom.bulkhead.*}, {@code --spring.data.redis.*}), given to every replica
     * @param redisConfigured whether {@code spring.data.redis.*} is set, so the replicas use that Redis
     */
    public ReplicatedComparison(SampleProperties properties, Scenario scenario, CalleeEndpoint callee,
            CalleeCalls calls, ModeRunner runner, ReportWriter writer, PrintStream out, List<String> forwardedArguments,
            boolean redisConfigured) {
        this.properties = properties;
        this.scenario = scenario;
        this.callee = callee;
        this.calls = calls;
        this.runner = runner;
        this.writer = writer;
        this.out = out;
        this.forwardedArguments = List.copyOf(forwardedArguments);
        this.redisConfigured = redisConfigured;
    }

    /** The requests replica {@code index} of {@code replicas} submits per mode, out of {@code requests}. */
    public static int share(int requests, int replicas, int index) {
        return requests / replicas + ((index < requests % replicas) ? 1 : 0);
    }

    /**
     * Checks that every mode can run, starts the callee, Redis if needed and the replicas, runs every mode in all
     * replicas and writes the report; returns it with the files' locations.
     * @throws ProcessStartException when a replica ended, or was not ready, before the first mode
     */
    public Comparison.Outcome run() {
        Scenario.warnOfModesLeftOut(this.properties);
        this.runner.checkRunnable(this.scenario.modes(), !this.redisConfigured);
        int replicas = this.properties.replicas();
        Path reportDir = this.properties.reportDir();
        String startedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        double loadAverage = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        this.callee.start();
        this.out.println();
        this.out.println("loom-bulkhead comparison with " + replicas + " replicas: " + Formats.count(this.scenario.requests())
                + " requests at once per mode in all (" + shares(replicas) + "), limit " + this.scenario.limit()
                + " in each replica (loom-bulkhead-cluster: in all of them), callee with "
                + this.scenario.calleeCapacity() + " workers and " + Formats.millis(this.scenario.calleeLatency().toMillis())
                + " latency, read timeout " + Formats.millis(this.scenario.readTimeout().toMillis()));
        LocalRedis redis = null;
        List<ReplicaProcess> processes = new ArrayList<>();
        try {
            List<String> redisArguments = List.of();
            if (this.scenario.modes().contains(Mode.LOOM_BULKHEAD_CLUSTER) && !this.redisConfigured) {
                redis = LocalRedis.start(this.properties.replica().redisServer(), reportDir.resolve("redis.log"),
                        Duration.ofSeconds(10));
                redisArguments = List.of("--spring.data.redis.host=" + redis.host(),
                        "--spring.data.redis.port=" + redis.port());
                this.out.println("Started redis-server on port " + redis.port() + " for loom-bulkhead-cluster");
            }
            Path gateDirectory = reportDir.resolve("replica-gate-" + ProcessHandle.current().pid() + "-"
                    + System.nanoTime());
            ReplicaGate gate = new ReplicaGate(gateDirectory);
            for (int i = 0; i < replicas; i++) {
                processes.add(ReplicaProcess.start(i, jvmArguments(), arguments(i, replicas, gateDirectory,
                        redisArguments), reportDir.resolve("replica-" + i + ".log")));
            }
            List<Integer> calleePeaks = runModes(gate, processes);
            awaitExit(processes);
            Report report = report(replicas, calleePeaks, startedAt, loadAverage);
            ReportWriter.Written written = this.writer.write(report, reportDir);
            this.out.println();
            this.out.print(ConsoleReport.render(report));
            this.out.println();
            this.out.println("Report: " + written.html().toAbsolutePath());
            this.out.println("        " + written.json().toAbsolutePath());
            this.out.println("        " + written.markdown().toAbsolutePath());
            return new Comparison.Outcome(report, written);
        }
        finally {
            processes.forEach(ReplicaProcess::close);
            if (redis != null) {
                redis.close();
            }
        }
    }

    private List<Integer> runModes(ReplicaGate gate, List<ReplicaProcess> processes) {
        int replicas = processes.size();
        Duration deadline = this.scenario.modeDeadline();
        Duration startupTimeout = this.properties.replica().startupTimeout();
        List<Integer> peaks = new ArrayList<>();
        for (Mode mode : this.scenario.modes()) {
            if (peaks.isEmpty()) {
                awaitStarted(gate, mode, processes, ReplicaGate.readyWait(deadline, startupTimeout, true));
            }
            else {
                gate.awaitReady(mode, replicas, ReplicaGate.readyWait(deadline, startupTimeout, false),
                        () -> allAlive(processes));
            }
            this.calls.resetPeak();
            this.calls.scheduleCapacity(this.scenario.capacitySchedule(), this.scenario.calleeLatency());
            gate.open(mode);
            this.out.println(String.format("%-25s started in %d replicas", mode.id(), replicas));
            gate.awaitDone(mode, replicas, ReplicaGate.doneWait(deadline), () -> allAlive(processes));
            this.calls.awaitIdleCallee(this.scenario.modeDeadline());
            int peak = this.calls.status().peakSlowInProgress();
            peaks.add(peak);
            this.out.println(String.format("%-25s ended; at most %d requests served by the callee at once", mode.id(),
                    peak));
        }
        return peaks;
    }

    /** Waits until every replica is ready for the first mode: until then, a replica that fails could not start. */
    private void awaitStarted(ReplicaGate gate, Mode first, List<ReplicaProcess> processes, Duration timeout) {
        try {
            gate.awaitReady(first, processes.size(), timeout, () -> allAlive(processes));
        }
        catch (IllegalStateException ex) {
            throw new ProcessStartException("The replicas did not become ready for the first mode, " + first + ": "
                    + ex.getMessage(), "Fix the cause shown in the replica's log; --loom.sample.replica.jvm-arguments "
                            + "sets the replicas' JVM options, --loom.sample.replica.startup-timeout how long they may "
                            + "take to start.");
        }
    }

    /** Whether every replica runs or has ended well (the last mode's done file comes before its exit). */
    private boolean allAlive(List<ReplicaProcess> processes) {
        for (int i = 0; i < processes.size(); i++) {
            if (!processes.get(i).isAliveOrSucceeded()) {
                throw new IllegalStateException("Replica " + i + " ended early, with exit code "
                        + processes.get(i).exitCode() + "; last lines of its log " + processes.get(i).log() + ":\n"
                        + processes.get(i).tail(30));
            }
        }
        return true;
    }

    private static void awaitExit(List<ReplicaProcess> processes) {
        for (int i = 0; i < processes.size(); i++) {
            ReplicaProcess process = processes.get(i);
            int code = process.awaitExit(Duration.ofSeconds(60));
            if (code != 0) {
                throw new IllegalStateException("Replica " + i + " exited with code " + code + "; last lines of its log "
                        + process.log() + ":\n" + process.tail(30));
            }
        }
    }

    private List<String> jvmArguments() {
        List<String> arguments = new ArrayList<>(this.properties.replica().jvmArguments());
        // Set here so that the replica is not restarted to switch it on.
        arguments.add("-XX:NativeMemoryTracking=summary");
        return arguments;
    }

    /**
     * The command line of replica {@code index}: its share of the requests, the scenario's other numbers, the
     * comparison's mode deadline and the replicas' startup timeout (so that it waits for a mode to start as long as
     * the comparison may take to start it), but not the capacity changes, which only the comparison posts to the
     * callee.
     */
    List<String> arguments(int index, int replicas, Path gate, List<String> redisArguments) {
        Scenario s = this.scenario;
        List<String> arguments = new ArrayList<>(this.forwardedArguments);
        arguments.addAll(redisArguments);
        arguments.addAll(List.of("--loom.sample.run=" + SampleProperties.RUN_COMPARE,
                "--loom.sample.scale=" + s.scale().name().toLowerCase(Locale.ROOT),
                "--loom.sample.requests=" + share(s.requests(), replicas, index), "--loom.sample.limit=" + s.limit(),
                "--loom.sample.read-timeout=" + s.readTimeout().toMillis() + "ms",
                "--loom.sample.connect-timeout=" + s.connectTimeout().toMillis() + "ms",
                "--loom.sample.modes=" + s.modes().stream().map(Mode::id).collect(Collectors.joining(",")),
                "--loom.sample.report-dir=" + replicaReportDir(index).toAbsolutePath(),
                "--loom.sample.sample-interval=" + this.properties.sampleInterval().toMillis() + "ms",
                "--loom.sample.warmup-requests=" + this.properties.warmupRequests() / replicas,
                "--loom.sample.retained-heap=" + this.properties.retainedHeap(), "--loom.sample.progress=false",
                "--loom.sample.callee.url=" + this.callee.baseUrl(),
                "--loom.sample.callee.capacity=" + s.calleeCapacity(),
                "--loom.sample.callee.latency=" + s.calleeLatency().toMillis() + "ms",
                "--loom.sample.adaptive.max-limit=" + s.adaptiveMaxLimit(), "--loom.sample.replica.index=" + index,
                "--loom.sample.replica.gate=" + gate.toAbsolutePath(),
                "--loom.sample.replica.mode-deadline=" + s.modeDeadline().toMillis() + "ms",
                "--loom.sample.replica.startup-timeout=" + this.properties.replica().startupTimeout().toMillis()
                        + "ms"));
        return arguments;
    }

    private Path replicaReportDir(int index) {
        return this.properties.reportDir().resolve("replica-" + index);
    }

    private String shares(int replicas) {
        List<String> shares = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            shares.add(Formats.count(share(this.scenario.requests(), replicas, i)));
        }
        return String.join(" + ", shares);
    }

    private Report report(int replicas, List<Integer> calleePeaks, String startedAt, double loadAverage) {
        List<Report> own = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            own.add(this.writer.read(replicaReportDir(i).resolve("report.json")));
        }
        List<RunReport> runs = new ArrayList<>();
        long bound = this.scenario.littlesLawBound().toMillis();
        for (int m = 0; m < this.scenario.modes().size(); m++) {
            int index = m;
            runs.add(ReplicaTotals.of(own.stream().map((r) -> r.runs().get(index)).toList(), bound,
                    calleePeaks.get(m)));
        }
        return new Report(scenario(own.get(0).scenario(), replicas, startedAt, loadAverage), List.copyOf(runs));
    }

    private ScenarioReport scenario(ScenarioReport first, int replicas, String startedAt, double loadAverage) {
        Scenario s = this.scenario;
        @Nullable String algorithm = first.adaptiveAlgorithm();
        return new ScenarioReport(s.requests(), s.limit(), s.calleeCapacity(), s.calleeLatency().toMillis(),
                s.readTimeout().toMillis(), first.javaVersion(), first.cpus(), s.connectTimeout().toMillis(),
                first.scale(), s.modes().stream().map(Mode::id).toList(), first.maxHeapBytes(),
                this.properties.warmupRequests() / replicas * replicas, first.sampleIntervalMs(),
                first.nativeMemoryTracking(), first.retainedHeap(), first.jvm(), first.os(), startedAt, loadAverage,
                s.adaptiveMaxLimit(), algorithm, s.capacityChanges(), s.littlesLawBound().toMillis(), replicas);
    }
}
