package io.github.loombulkhead.sample.server;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.loombulkhead.sample.CapacitySchedule;
import io.github.loombulkhead.sample.Scenario;
import io.github.loombulkhead.sample.client.CalleeCalls;
import io.github.loombulkhead.sample.client.CalleeEndpoint;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The server comparison: with the callee running, starts one front-server JVM per setup, one after another (having
 * set the callee's workers to the scenario's capacity and checked its latency before each), drives it with ab at each
 * concurrency level, reads the samples it took of itself, and writes the report.
 */
final class ServerComparison {

    private static final Log logger = LogFactory.getLog(ServerComparison.class);

    /** Callee calls per front request. */
    static final int CALLS_PER_REQUEST = 2;

    static final List<String> FRONT_JVM_ARGUMENTS = List.of("-Xmx512m", "-Xss1m");

    static final String NOTES = """
            Little's-law bound: the requests a setup works on at once (ab's concurrency, or fewer when Tomcat's \
            threads or the inbound limit say so) over the time one request takes (two callee latencies, one when \
            the two calls run in parallel), capped by what the callee serves: capacity / (2 x latency). \
            Req/s and 'of bound' count only the requests answered with a 2xx status (ab's own req/s counts every \
            completed request, also one refused or closed without an answer). \
            'Failed' counts ab's connect and read failures (ab -r -l: answers of different lengths are not \
            failures); 'Non-2xx' counts 500 answers (a callee call failed, e.g. it timed out while queued at the \
            callee) and 503 answers (the inbound bulkhead rejected the request); 'No answer' counts the requests \
            that got no status at all. The inbound bulkhead sheds only when its limit plus its queue is smaller \
            than the concurrency: its max wait (inboundMaxWaitMs) is beyond the longest wait a request can have, \
            so it times none out. virtual-inbound's queue is larger than the load, so it sheds nothing; \
            virtual-inbound-shed's queue is as large as its limit, so beyond twice the callee's capacity it answers \
            the rest at once with 503. 'Inbound 503' is what the bulkhead itself counted; they are not served \
            requests, but ab's times include them, so they lower that setup's mean. Live threads and heap are the \
            front JVM's, sampled from inside it; \
            'callee calls in flight' are the front's calls that have not yet been answered, including those \
            queued at the callee. CPU is a share of all cores: the front JVM's, and the whole machine's (ab, \
            callee, front and anything else running); a machine near 100 % caps every setup, whatever its bound.""";

    private final ServerCompareProperties properties;

    private final Scenario scenario;

    private final CalleeEndpoint callee;

    private final CalleeCalls calls;

    private final Path reportDir;

    private final PrintStream console;

    private final ApacheBench ab;

    ServerComparison(ServerCompareProperties properties, Scenario scenario, CalleeEndpoint callee, CalleeCalls calls,
            Path reportDir, PrintStream console) {
        this.properties = properties;
        this.scenario = scenario;
        this.callee = callee;
        this.calls = calls;
        this.reportDir = reportDir;
        this.console = console;
        this.ab = new ApacheBench(properties.ab());
    }

    /** Runs every setup at every level and writes the report; returns report.json's path. */
    Path run() {
        String abVersion = this.ab.version();
        this.callee.start();
        int capacity = this.scenario.calleeCapacity();
        Duration latency = this.scenario.calleeLatency();
        int maxConcurrency = this.properties.concurrency().stream().mapToInt(Integer::intValue).max().orElse(1);
        List<ServerReport.Result> results = new ArrayList<>();
        List<ServerReport.Timeline> timelines = new ArrayList<>();
        Duration inboundMaxWait = ServerSetup.inboundMaxWait(capacity, maxConcurrency, CALLS_PER_REQUEST,
                this.scenario.connectTimeout(), this.scenario.readTimeout());
        // A constant capacity: the bound assumes one, so capacity changes do not apply here.
        CapacitySchedule schedule = new CapacitySchedule(capacity, List.of());
        for (ServerSetup setup : this.properties.setupList()) {
            // Before each setup, while the callee is idle: an external callee may have been left with another
            // capacity, and one started with another latency than the bound assumes is refused before any front
            // server starts.
            this.calls.awaitIdleCallee(Duration.ofMinutes(2));
            this.calls.scheduleCapacity(schedule, latency);
            Path samples = this.reportDir.resolve("front-" + setup.id() + ".csv");
            List<Window> windows = new ArrayList<>();
            List<ApacheBench.AbResult> runs = new ArrayList<>();
            try (FrontServer front = FrontServer.start(FRONT_JVM_ARGUMENTS,
                    frontArguments(setup, capacity, maxConcurrency, inboundMaxWait, samples),
                    this.reportDir.resolve("front-" + setup.id() + ".log"), Duration.ofSeconds(120))) {
                String url = front.baseUrl().resolve(setup.path()).toString();
                for (int concurrency : this.properties.concurrency()) {
                    int warmup = this.properties.warmupRequestsAt(setup, concurrency, capacity, latency);
                    if (warmup > 0) {
                        this.calls.awaitIdleCallee(Duration.ofMinutes(2));
                        this.ab.run(url, warmup, concurrency, 30);
                        front.requireAlive("the warm-up of " + setup.id() + " at concurrency " + concurrency);
                    }
                }
                for (int concurrency : this.properties.concurrency()) {
                    this.calls.awaitIdleCallee(Duration.ofMinutes(2));
                    long start = System.currentTimeMillis();
                    int requests = this.properties.requestsAt(setup, concurrency, capacity, latency);
                    ApacheBench.AbResult result = this.ab.run(url, requests, concurrency, 30);
                    long end = System.currentTimeMillis();
                    front.requireAlive("the level of " + setup.id() + " at concurrency " + concurrency);
                    windows.add(new Window(concurrency, start, end));
                    runs.add(result);
                    // The counts of this run are final once the front server sampled itself after it.
                    awaitSampleAfter(samples, end, Duration.ofSeconds(5));
                }
            }
            List<FrontSample> all = readSamples(samples);
            for (int i = 0; i < windows.size(); i++) {
                Window window = windows.get(i);
                List<ServerReport.Point> points = all.stream()
                    .filter((s) -> s.epochMs() >= window.startMs() && s.epochMs() <= window.endMs())
                    .map((s) -> new ServerReport.Point(s.epochMs() - window.startMs(), s.liveThreads(),
                            s.heapUsedBytes(), s.calleeInFlight(), s.inboundActive(), s.inboundWaiting(),
                            s.frontCpu(), s.machineCpu()))
                    .toList();
                ServerReport.Result result = result(setup, window.concurrency(), runs.get(i), points, capacity,
                        latency, setup.inboundQueueCapacity(capacity, maxConcurrency), rejectedDuring(all, window));
                results.add(result);
                timelines.add(new ServerReport.Timeline(setup.id(), window.concurrency(), points));
                this.console.println(line(result));
            }
        }
        ServerReport report = new ServerReport(new ServerReport.Scenario(capacity, latency.toMillis(),
                this.scenario.readTimeout().toMillis(), CALLS_PER_REQUEST, this.properties.requests(),
                this.properties.levelDuration().toMillis(), this.properties.warmupRequests(),
                this.properties.warmupDuration().toMillis(),
                this.properties.concurrency(), this.properties.setupList().stream().map(ServerSetup::id).toList(),
                Runtime.getRuntime().availableProcessors(), abVersion, FRONT_JVM_ARGUMENTS, inboundMaxWait.toMillis()),
                results, timelines,
                NOTES);
        Path json = new ServerReportWriter().write(report, this.reportDir);
        this.console.println("Report: " + json.toAbsolutePath().getParent().resolve("report.html"));
        return json;
    }

    private List<String> frontArguments(ServerSetup setup, int capacity, int maxConcurrency, Duration inboundMaxWait,
            Path samples) {
        List<String> arguments = new ArrayList<>();
        arguments.add("--loom.sample.callee.url=" + this.callee.baseUrl());
        arguments.add("--loom.sample.read-timeout=" + this.scenario.readTimeout().toMillis() + "ms");
        arguments.add("--loom.sample.connect-timeout=" + this.scenario.connectTimeout().toMillis() + "ms");
        // The pool holds a connection per call in flight, so that it never limits a setup.
        arguments.add("--loom.sample.requests=" + Math.max(1_000, CALLS_PER_REQUEST * maxConcurrency));
        arguments.add("--loom.sample.server.samples=" + samples.toAbsolutePath());
        arguments.add("--server.tomcat.accept-count=4096");
        arguments.add("--management.endpoints.web.exposure.include=health");
        arguments.addAll(setup.arguments(capacity, maxConcurrency, inboundMaxWait));
        return arguments;
    }

    static ServerReport.Result result(ServerSetup setup, int concurrency, ApacheBench.AbResult ab,
            List<ServerReport.Point> points, int capacity, Duration latency, @Nullable Integer inboundQueue,
            long inboundRejected) {
        double bound = setup.littlesLawBound(concurrency, capacity, latency);
        Integer inboundLimit = (inboundQueue != null) ? capacity : null;
        Boolean holdsLoad = (inboundQueue != null) ? capacity + inboundQueue >= concurrency : null;
        // Only answers with a 2xx status count as served: ab's own req/s also counts the requests that got none.
        double served = ab.answered2xxPerSecond();
        return new ServerReport.Result(setup.id(), concurrency, ab.complete(), ab.answered2xx(), ab.unanswered(),
                served, ab.meanMs(), ab.timePerRequestMs(), ab.p50Ms(), ab.p99Ms(), ab.failed(), ab.non2xx(), bound,
                served / bound,
                ab.durationMs(), points.stream().mapToInt(ServerReport.Point::liveThreads).max().orElse(0),
                points.stream().mapToLong(ServerReport.Point::heapUsedBytes).max().orElse(0),
                points.stream().mapToInt(ServerReport.Point::calleeInFlight).max().orElse(0),
                points.stream().mapToInt(ServerReport.Point::inboundWaiting).max().orElse(0),
                points.stream().mapToInt(ServerReport.Point::inboundActive).max().orElse(0),
                points.stream().mapToDouble(ServerReport.Point::frontCpu).average().orElse(0),
                points.stream().mapToDouble(ServerReport.Point::machineCpu).average().orElse(0), inboundLimit,
                inboundQueue, holdsLoad, inboundRejected);
    }

    /**
     * Requests the inbound bulkhead rejected during {@code window}: its count in the first sample after the run
     * less its count in the last sample before it.
     */
    static long rejectedDuring(List<FrontSample> samples, Window window) {
        long before = samples.stream()
            .filter((s) -> s.epochMs() < window.startMs())
            .mapToLong(FrontSample::inboundRejected)
            .max()
            .orElse(0);
        long after = samples.stream()
            .filter((s) -> s.epochMs() >= window.endMs())
            .mapToLong(FrontSample::inboundRejected)
            .min()
            .orElse(samples.stream().mapToLong(FrontSample::inboundRejected).max().orElse(0));
        return Math.max(0, after - before);
    }

    private static void awaitSampleAfter(Path samples, long epochMs, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (readSamples(samples).stream().noneMatch((s) -> s.epochMs() >= epochMs)) {
            if (System.nanoTime() > deadline) {
                logger.warn("The front server wrote no sample within " + timeout + " after the run (" + samples
                        + "); its inbound 503 count for this run is the last one it wrote and may be too low");
                return;
            }
            try {
                Thread.sleep(50);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for the front server's samples", ex);
            }
        }
    }

    private static String line(ServerReport.Result r) {
        return String.format(Locale.ROOT,
                "%-20s c=%-5d %7.1f req/s 2xx (bound %5.1f, %3.0f %%)  mean %7.1f ms  p50 %5d  p99 %5d  failed %d  "
                        + "non-2xx %d  no answer %d  threads %d  callee in flight %d  CPU front %.0f %% machine %.0f %%%s",
                r.setup(), r.concurrency(), r.requestsPerSecond(), r.littlesLawBound(),
                r.littlesLawEfficiency() * 100, r.meanMs(), r.p50Ms(), r.p99Ms(), r.failed(), r.non2xx(), r.unanswered(),
                r.peakLiveThreads(), r.peakCalleeInFlight(), r.meanFrontCpu() * 100, r.meanMachineCpu() * 100,
                (r.inboundLimit() != null) ? "  inbound " + ServerReportWriter.inbound(r) : "");
    }

    private static List<FrontSample> readSamples(Path file) {
        if (!Files.exists(file)) {
            return List.of();
        }
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8)
                .stream()
                .filter((line) -> line.split(",").length == FrontSample.FIELDS)
                .map(FrontSample::fromCsv)
                .toList();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    record Window(int concurrency, long startMs, long endMs) {
    }
}
