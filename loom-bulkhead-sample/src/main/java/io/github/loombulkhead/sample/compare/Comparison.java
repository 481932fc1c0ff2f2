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

import io.github.loombulkhead.sample.Mode;
import io.github.loombulkhead.sample.SampleProperties;
import io.github.loombulkhead.sample.Scenario;
import io.github.loombulkhead.sample.client.CalleeEndpoint;
import io.github.loombulkhead.sample.measure.JvmMetrics;
import io.github.loombulkhead.sample.measure.NativeMemoryTracking;
import io.github.loombulkhead.sample.report.ConsoleReport;
import io.github.loombulkhead.sample.report.Formats;
import io.github.loombulkhead.sample.report.Report;
import io.github.loombulkhead.sample.report.ReportWriter;
import io.github.loombulkhead.sample.report.RunReport;
import io.github.loombulkhead.sample.report.ScenarioReport;

/**
 * The whole comparison: a warm-up, then every mode in turn with a progress bar, then the result table on
 * the console and report.json, report.md and report.html in the report directory.
 */
public final class Comparison {

    private final SampleProperties properties;

    private final Scenario scenario;

    private final ModeRunner runner;

    private final JvmMetrics jvm;

    private final NativeMemoryTracking nativeMemory;

    private final ReportWriter writer;

    private final PrintStream out;

    private final CalleeEndpoint callee;

    public Comparison(SampleProperties properties, Scenario scenario, CalleeEndpoint callee, ModeRunner runner,
            JvmMetrics jvm, NativeMemoryTracking nativeMemory, ReportWriter writer, PrintStream out) {
        this.properties = properties;
        this.callee = callee;
        this.scenario = scenario;
        this.runner = runner;
        this.jvm = jvm;
        this.nativeMemory = nativeMemory;
        this.writer = writer;
        this.out = out;
    }

    /**
     * Checks that every mode can run, starts the callee (unless it runs elsewhere), runs every mode and writes
     * the report; returns it with the files' locations.
     */
    public Outcome run() {
        Scenario.warnOfModesLeftOut(this.properties);
        this.runner.checkRunnable(this.scenario.modes());
        this.callee.start();
        ScenarioReport scenarioReport = scenarioReport();
        this.out.println();
        this.out.println("loom-bulkhead comparison: " + Formats.count(this.scenario.requests())
                + " requests at once per mode, limit " + this.scenario.limit() + " (adaptive modes at most "
                + Formats.count(this.scenario.adaptiveMaxLimit()) + "), callee with " + this.scenario.calleeCapacity()
                + " workers" + Formats.capacityChanges(this.scenario.capacityChanges()) + " and "
                + Formats.millis(this.scenario.calleeLatency().toMillis()) + " latency, read timeout "
                + Formats.millis(this.scenario.readTimeout().toMillis()) + "; Little's-law bound "
                + Formats.seconds(this.scenario.littlesLawBound().toMillis()));
        if (!this.nativeMemory.isEnabled()) {
            this.out.println("Native memory tracking is off, so thread-stack memory is not measured; "
                    + "start the JVM with -XX:NativeMemoryTracking=summary to include it.");
        }
        warmUp();
        List<RunReport> runs = new ArrayList<>();
        Integer replica = this.properties.replica().index();
        Path gateDirectory = this.properties.replica().gate();
        ReplicaGate gate = (replica != null && gateDirectory != null) ? new ReplicaGate(gateDirectory) : null;
        ModeRunner.RunSettings settings = new ModeRunner.RunSettings(this.scenario.requests(), this.scenario.limit(),
                this.scenario.modeDeadline(), this.properties.retainedHeap(), this.scenario.capacitySchedule(),
                this.scenario.calleeLatency(), gate == null);
        for (Mode mode : this.scenario.modes()) {
            ConsoleProgress progress = new ConsoleProgress(this.out, mode.id(), this.scenario.requests(),
                    this.properties.progress() && ConsoleProgress.isTerminal());
            Duration openWait = ReplicaGate.openWait(this.scenario.modeDeadline(),
                    this.properties.replica().startupTimeout(), runs.isEmpty());
            RunReport run = (gate != null)
                    ? this.runner.run(mode, settings, progress, () -> gate.arrive(mode, replica, openWait))
                    : this.runner.run(mode, settings, progress);
            if (gate != null) {
                gate.finished(mode, replica);
            }
            progress.finish(run);
            runs.add(run);
        }
        Report report = new Report(scenarioReport, List.copyOf(runs));
        ReportWriter.Written written = this.writer.write(report, this.properties.reportDir());
        this.out.println();
        this.out.print(ConsoleReport.render(report));
        this.out.println();
        this.out.println("Report: " + written.html().toAbsolutePath());
        this.out.println("        " + written.json().toAbsolutePath());
        this.out.println("        " + written.markdown().toAbsolutePath());
        return new Outcome(report, written);
    }

    private void warmUp() {
        int total = this.properties.warmupRequests();
        if (total == 0) {
            return;
        }
        int perMode = Math.max(1, total / this.scenario.modes().size());
        long warmup = (long) perMode * this.scenario.modes().size();
        this.out.println("Warming up both JVMs with " + Formats.count(warmup) + " quick requests"
                + ((warmup == total) ? "" : " (" + Formats.count(perMode) + " per mode, of the " + Formats.count(total)
                        + " asked for)")
                + "...");
        for (Mode mode : this.scenario.modes()) {
            this.runner.warmUp(mode, perMode, this.scenario.limit(), this.scenario.modeDeadline());
        }
    }

    private ScenarioReport scenarioReport() {
        Scenario s = this.scenario;
        return new ScenarioReport(s.requests(), s.limit(), s.calleeCapacity(), s.calleeLatency().toMillis(),
                s.readTimeout().toMillis(), System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                s.connectTimeout().toMillis(), s.scale().name().toLowerCase(Locale.ROOT),
                s.modes().stream().map(Mode::id).toList(), this.jvm.maxHeap(), this.properties.warmupRequests(),
                this.properties.sampleInterval().toMillis(), this.nativeMemory.isEnabled(),
                this.properties.retainedHeap(),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"),
                Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), s.adaptiveMaxLimit(),
                s.modes().contains(Mode.LOOM_BULKHEAD_ADAPTIVE) ? this.runner.adaptiveAlgorithm() : null,
                s.capacityChanges(), s.littlesLawBound().toMillis());
    }

    /**
     * What a comparison produced.
     *
     * @param report the report
     * @param files where it was written
     */
    public record Outcome(Report report, ReportWriter.Written files) {
    }
}
