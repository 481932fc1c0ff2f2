package io.github.loombulkhead.benchmarks;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.github.loombulkhead.benchmarks.adaptive.AdaptiveLimitSimulation;
import io.github.loombulkhead.benchmarks.adaptive.AdaptiveResults;
import io.github.loombulkhead.benchmarks.fairness.FairnessResult;
import io.github.loombulkhead.benchmarks.fairness.FairnessUnderOverload;
import io.github.loombulkhead.benchmarks.http.HttpLatencyPaired;
import io.github.loombulkhead.benchmarks.http.HttpPairedResult;
import io.github.loombulkhead.benchmarks.jmh.BurstThroughputBenchmark;
import io.github.loombulkhead.benchmarks.jmh.HttpPathBenchmark;
import io.github.loombulkhead.benchmarks.jmh.UncontendedOverheadBenchmark;
import io.github.loombulkhead.benchmarks.memory.MemoryResult;
import io.github.loombulkhead.benchmarks.memory.WaitingTaskMemory;
import io.github.loombulkhead.benchmarks.report.JmhResults;
import io.github.loombulkhead.benchmarks.report.MarkdownReport;
import io.github.loombulkhead.benchmarks.report.SuiteEnvironment;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs every benchmark and harness and writes {@code benchmarks.md} (ratios against the raw-semaphore baseline
 * measured in the same run, absolute numbers with JMH's error bars) next to the raw results.
 *
 * <pre>
 * java -jar benchmarks.jar [--long] [--only=burst,overhead,http,memory,fairness,adaptive] [--out=DIR] [--docs=FILE]
 * </pre>
 * {@code --docs} also replaces the results section of that Markdown file, keeping the text around it.
 */
public final class BenchmarkSuite {

    /** The parts of the suite, in the order they run. */
    public static final List<String> PARTS = List.of("burst", "overhead", "http", "memory", "fairness", "adaptive");

    private static final Duration CHILD_TIMEOUT = Duration.ofMinutes(10);

    private final SuiteSettings settings;

    private final Set<String> parts;

    private final Path out;

    private BenchmarkSuite(SuiteSettings settings, Set<String> parts, Path out) {
        this.settings = settings;
        this.parts = parts;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        SuiteSettings settings = SuiteSettings.quick();
        Set<String> parts = new LinkedHashSet<>(PARTS);
        Path out = Path.of("benchmark-results");
        Path docs = null;
        String command = "java -jar benchmarks.jar " + String.join(" ", args);
        for (String arg : args) {
            if (arg.equals("--long")) {
                settings = SuiteSettings.thorough();
            }
            else if (arg.startsWith("--only=")) {
                parts = parseParts(arg.substring("--only=".length()));
            }
            else if (arg.startsWith("--out=")) {
                out = Path.of(arg.substring("--out=".length()));
            }
            else if (arg.startsWith("--docs=")) {
                docs = Path.of(arg.substring("--docs=".length()));
            }
            else if (arg.startsWith("--command=")) {
                command = arg.substring("--command=".length());
            }
            else {
                throw new IllegalArgumentException("Unknown option '" + arg + "'; use --long, --only=" + String.join(",", PARTS)
                        + ", --out=DIR, --docs=FILE, --command=TEXT");
            }
        }
        if (docs != null && !parts.equals(new LinkedHashSet<>(PARTS))) {
            throw new IllegalArgumentException("--docs replaces the whole results section of " + docs
                    + " and would drop the tables of the parts --only leaves out; run every part with --docs, or "
                    + "leave --docs out and copy the tables from " + out.resolve("benchmarks.md"));
        }
        String markdown = new BenchmarkSuite(settings, parts, out).run(command);
        if (docs != null) {
            MarkdownReport.writeInto(docs, markdown);
            System.out.println("Updated the results section of " + docs);
        }
    }

    private static Set<String> parseParts(String list) {
        Set<String> parts = new LinkedHashSet<>();
        for (String part : list.split(",")) {
            if (!PARTS.contains(part.trim())) {
                throw new IllegalArgumentException("Unknown part '" + part + "' in --only; use any of " + PARTS);
            }
            parts.add(part.trim());
        }
        return parts;
    }

    /** Runs the selected parts with {@code settings}, writing results under {@code out}; returns the Markdown. */
    public static String run(SuiteSettings settings, Set<String> parts, Path out, String command) throws Exception {
        return new BenchmarkSuite(settings, parts, out).run(command);
    }

    private String run(String command) throws Exception {
        Files.createDirectories(this.out);
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        String loadAtStart = SuiteEnvironment.loadAverage();
        File jmhJson = this.out.resolve("jmh-result.json").toFile();
        File burstJson = this.out.resolve("jmh-burst-result.json").toFile();
        Files.deleteIfExists(jmhJson.toPath());
        Files.deleteIfExists(burstJson.toPath());
        runJmh(jmhJson, burstJson);
        List<HttpPairedResult> http = this.parts.contains("http") ? runHttpPaired() : List.of();
        write("http-paired.json", http);
        List<MemoryResult> memory = this.parts.contains("memory") ? runMemory() : List.of();
        write("memory.json", memory);
        List<FairnessResult> fairness = this.parts.contains("fairness") ? runFairness() : List.of();
        write("fairness.json", fairness);
        AdaptiveResults adaptive = this.parts.contains("adaptive") ? runAdaptive() : null;
        if (adaptive != null) {
            write("adaptive.json", adaptive);
        }
        SuiteEnvironment environment = SuiteEnvironment.capture(command, this.settings, started, loadAtStart);
        String markdown = new MarkdownReport(environment, JmhResults.read(burstJson, jmhJson), http, memory,
                fairness, adaptive)
            .render();
        Path report = this.out.resolve("benchmarks.md");
        Files.writeString(report, markdown, StandardCharsets.UTF_8);
        System.out.println("Wrote " + report.toAbsolutePath());
        return markdown;
    }

    private void runJmh(File resultFile, File burstResultFile) throws RunnerException {
        if (this.parts.contains("burst")) {
            ChainedOptionsBuilder burst = options(burstResultFile)
                .warmupIterations(this.settings.burstWarmupIterations())
                .measurementIterations(this.settings.burstIterations())
                .param("tasks", String.valueOf(this.settings.burstTasks()));
            new Runner(include(burst, BurstThroughputBenchmark.class).build()).run();
        }
        if (this.parts.contains("overhead") || this.parts.contains("http")) {
            ChainedOptionsBuilder options = options(resultFile).warmupIterations(this.settings.warmupIterations())
                .warmupTime(TimeValue.milliseconds(this.settings.warmupTime().toMillis()))
                .measurementIterations(this.settings.iterations())
                .measurementTime(TimeValue.milliseconds(this.settings.iterationTime().toMillis()));
            if (this.parts.contains("overhead")) {
                include(options, UncontendedOverheadBenchmark.class);
            }
            if (this.parts.contains("http")) {
                include(options, HttpPathBenchmark.class);
            }
            new Runner(options.build()).run();
        }
    }

    private ChainedOptionsBuilder options(File resultFile) {
        return new OptionsBuilder().forks(this.settings.forks())
            .timeout(TimeValue.minutes(5))
            .jvmArgsAppend("-Xms2g", "-Xmx2g")
            .resultFormat(ResultFormatType.JSON)
            .result(resultFile.getPath())
            .shouldFailOnError(true);
    }

    private static ChainedOptionsBuilder include(ChainedOptionsBuilder options, Class<?> benchmark) {
        return options.include("^" + benchmark.getName().replace(".", "\\.") + "\\.");
    }

    private List<HttpPairedResult> runHttpPaired() throws Exception {
        System.out.println("# http: interleaved rounds");
        if (this.settings.inProcess()) {
            return HttpLatencyPaired.measure(this.settings.httpWarmup(), this.settings.httpRounds());
        }
        String json = ChildJvm.run(HttpLatencyPaired.class, List.of("-Xms1g", "-Xmx1g"),
                List.of(String.valueOf(this.settings.httpWarmup().toMillis()), String.valueOf(this.settings.httpRounds())),
                CHILD_TIMEOUT);
        return Arrays.asList(JsonMapper.shared().readValue(json, HttpPairedResult[].class));
    }

    private List<MemoryResult> runMemory() throws Exception {
        List<MemoryResult> results = new ArrayList<>();
        for (int tasks : this.settings.memoryTasks()) {
            for (int repeat = 0; repeat < this.settings.memoryRepeats(); repeat++) {
                for (WaitingTaskMemory.Mode mode : WaitingTaskMemory.Mode.values()) {
                    System.out.println("# memory: " + mode + " with " + tasks + " waiting tasks");
                    MemoryResult result;
                    if (this.settings.inProcess()) {
                        result = WaitingTaskMemory.measure(mode, tasks);
                    }
                    else {
                        String json = ChildJvm.run(WaitingTaskMemory.class,
                                List.of("-XX:+UseSerialGC", "-Xms1g", "-Xmx8g"),
                                List.of(mode.name(), String.valueOf(tasks)), CHILD_TIMEOUT);
                        result = JsonMapper.shared().readValue(json, MemoryResult.class);
                    }
                    System.out.printf("# memory: %.1f bytes per waiting task%n", result.bytesPerTask());
                    results.add(result);
                }
            }
        }
        return results;
    }

    private List<FairnessResult> runFairness() throws Exception {
        List<FairnessResult> results = new ArrayList<>();
        for (FairnessUnderOverload.Mode mode : FairnessUnderOverload.Mode.values()) {
            System.out.println("# fairness: " + mode);
            FairnessResult result;
            if (this.settings.inProcess()) {
                result = FairnessUnderOverload.measure(mode, this.settings.fairnessDuration(),
                        this.settings.fairnessWarmup());
            }
            else {
                String json = ChildJvm.run(FairnessUnderOverload.class, List.of("-Xms1g", "-Xmx1g"),
                        List.of(mode.name(), String.valueOf(this.settings.fairnessDuration().toMillis()),
                                String.valueOf(this.settings.fairnessWarmup().toMillis())),
                        CHILD_TIMEOUT);
                result = JsonMapper.shared().readValue(json, FairnessResult.class);
            }
            System.out.printf("# fairness: p99 %.1f ms, max %.1f ms%n", result.p99Millis(), result.maxMillis());
            results.add(result);
        }
        return results;
    }

    private AdaptiveResults runAdaptive() {
        System.out.println("# adaptive: every algorithm against the queueing callee, virtual time");
        AdaptiveResults results = AdaptiveLimitSimulation.run(this.settings.adaptiveShorten());
        System.out.printf("# adaptive: %d scenario rows, %d burst rows%n", results.scenarios().size(),
                results.bursts().size());
        return results;
    }

    private void write(String fileName, Object results) throws IOException {
        Files.writeString(this.out.resolve(fileName),
                JsonMapper.builder().enable(tools.jackson.databind.SerializationFeature.INDENT_OUTPUT).build()
                    .writeValueAsString(results), StandardCharsets.UTF_8);
    }
}
