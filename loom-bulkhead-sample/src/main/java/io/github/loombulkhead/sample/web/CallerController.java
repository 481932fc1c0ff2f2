package io.github.loombulkhead.sample.web;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.loombulkhead.sample.Mode;
import io.github.loombulkhead.sample.SampleArgumentException;
import io.github.loombulkhead.sample.SampleProperties;
import io.github.loombulkhead.sample.Scenario;
import io.github.loombulkhead.sample.client.CalleeClientConfiguration;
import io.github.loombulkhead.sample.compare.ModeRunner;
import io.github.loombulkhead.sample.compare.RunInProgressException;
import io.github.loombulkhead.sample.report.RunReport;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code GET /api/test/{mode}}: fires {@code requests} calls at the callee the way {@code mode} does and answers
 * with the run's measurements. The reference's names work too: {@code threadpool}, {@code virtual} and
 * {@code virtual-limited}.
 */
@RestController
@ConditionalOnWebApplication
@ConditionalOnProperty(name = "loom.sample.role", havingValue = "caller", matchIfMissing = true)
@RequestMapping("/api/test")
class CallerController {

    /** The reference's endpoint names. */
    static final Map<String, Mode> REFERENCE_NAMES = Map.of("threadpool", Mode.THREAD_POOL, "virtual",
            Mode.VIRTUAL_UNBOUNDED, "virtual-limited", Mode.VIRTUAL_SEMAPHORE);

    private final ModeRunner runner;

    private final Scenario scenario;

    private final SampleProperties properties;

    CallerController(ModeRunner runner, Scenario scenario, SampleProperties properties) {
        this.runner = runner;
        this.scenario = scenario;
        this.properties = properties;
    }

    /**
     * Runs one mode.
     *
     * @param name a mode id or one of the reference's names
     * @param requests requests to fire (default: the scenario's)
     * @param limit limit of the bounded modes with a static limit (default: the scenario's)
     * @param timeline whether to include the time series
     */
    @GetMapping("/{name}")
    RunReport run(@PathVariable String name, @RequestParam(required = false) @Nullable Integer requests,
            @RequestParam(required = false) @Nullable Integer limit,
            @RequestParam(defaultValue = "false") boolean timeline) {
        Mode mode = resolve(name).orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND,
                "No mode '" + name + "'; use one of " + String.join(", ", Mode.ids()) + " or "
                        + String.join(", ", REFERENCE_NAMES.keySet().stream().sorted().toList())));
        int n = (requests != null) ? requests : this.scenario.requests();
        int max = (limit != null) ? limit : this.scenario.limit();
        if (n < 1 || max < 1) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "requests and limit must be at least 1");
        }
        int pool = CalleeClientConfiguration.poolSize(this.scenario);
        if (n > pool) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "requests must be at most " + pool
                    + ", the size of the connection pool (so that the pool never limits a mode); start the "
                    + "application with --loom.sample.requests=" + n + " to allow more");
        }
        this.runner.whyNotRunnable(mode).ifPresent((reason) -> {
            throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE,
                    "Mode " + mode + " cannot run in this application: " + reason);
        });
        Scenario sized = new Scenario(this.scenario.scale(), n, max, this.scenario.calleeCapacity(),
                this.scenario.calleeLatency(), this.scenario.readTimeout(), this.scenario.connectTimeout(),
                List.of(mode), this.scenario.adaptiveMaxLimit(), this.scenario.capacityChanges());
        try {
            RunReport run = this.runner.run(mode,
                    new ModeRunner.RunSettings(n, max, sized.modeDeadline(), this.properties.retainedHeap(),
                            sized.capacitySchedule(), sized.calleeLatency(), true),
                    (point) -> {
                    });
            return timeline ? run : withoutTimeline(run);
        }
        catch (RunInProgressException ex) {
            throw new ResponseStatusException(HttpStatus.CONFLICT, ex.getMessage(), ex);
        }
        catch (SampleArgumentException ex) {
            // The callee does not run the scenario this application describes (e.g. another latency).
            throw new ResponseStatusException(HttpStatus.CONFLICT, ex.getMessage(), ex);
        }
    }

    static Optional<Mode> resolve(String name) {
        return Optional.ofNullable(REFERENCE_NAMES.get(name)).or(() -> Mode.fromId(name));
    }

    private static RunReport withoutTimeline(RunReport r) {
        return new RunReport(r.mode(), r.requests(), r.succeeded(), r.failed(), r.failures(), r.successRate(),
                r.durationMs(), r.littlesLawBoundMs(), r.littlesLawEfficiency(), r.p50Ms(), r.p99Ms(), r.peakPlatformThreads(), r.baselinePlatformThreads(),
                r.peakVirtualThreads(), r.peakInFlight(), r.peakHeapUsedBytes(), r.baselineHeapUsedBytes(),
                r.retainedHeapBytes(), r.heapProbeGcMs(), r.threadStackReservedDeltaBytes(), r.threadStackCommittedDeltaBytes(),
                r.nativeThreadsDelta(), r.gcCount(), r.gcTimeMs(), r.cpuTimeMs(), List.of());
    }
}
