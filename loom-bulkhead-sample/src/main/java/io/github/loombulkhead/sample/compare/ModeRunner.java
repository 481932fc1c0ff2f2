package io.github.loombulkhead.sample.compare;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

import io.github.loombulkhead.sample.CapacitySchedule;
import io.github.loombulkhead.sample.Mode;
import io.github.loombulkhead.sample.SampleArgumentException;
import io.github.loombulkhead.sample.client.CalleeCalls;
import io.github.loombulkhead.sample.measure.CallRecorder;
import io.github.loombulkhead.sample.measure.FailureCause;
import io.github.loombulkhead.sample.measure.JvmMetrics;
import io.github.loombulkhead.sample.measure.JvmMetrics.GcTotals;
import io.github.loombulkhead.sample.measure.NativeMemoryTracking;
import io.github.loombulkhead.sample.measure.NativeMemoryTracking.ThreadMemory;
import io.github.loombulkhead.sample.measure.TimelineSampler;
import io.github.loombulkhead.sample.mode.ConcurrencyStrategy;
import io.github.loombulkhead.sample.mode.Modes;
import io.github.loombulkhead.sample.report.RunReport;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs one mode the way the reference did: {@code CompletableFuture.runAsync(call, executor)} for every
 * request, all submitted at once, then waits for all of them; and measures it. Before each run it waits
 * for an idle callee, empties the connection pool and takes a full GC, so every mode starts alike; right before
 * the first submission it hands the callee the capacity schedule (the scenario's capacity and its changes, if any),
 * so that every mode starts from the scenario's capacity whatever an earlier run left the callee with.
 */
public final class ModeRunner {

    private static final Log logger = LogFactory.getLog(ModeRunner.class);

    private final Modes modes;

    private final CalleeCalls calls;

    private final JvmMetrics jvm;

    private final NativeMemoryTracking nativeMemory;

    private final TimelineSampler sampler;

    private final @Nullable MeterRegistry registry;

    private final ReentrantLock running = new ReentrantLock();

    public ModeRunner(Modes modes, CalleeCalls calls, JvmMetrics jvm, NativeMemoryTracking nativeMemory,
            TimelineSampler sampler, @Nullable MeterRegistry registry) {
        this.modes = modes;
        this.calls = calls;
        this.jvm = jvm;
        this.nativeMemory = nativeMemory;
        this.sampler = sampler;
        this.registry = registry;
    }

    /**
     * Runs and measures {@code mode}.
     * @throws RunInProgressException when another run is in progress
     */
    public RunReport run(Mode mode, RunSettings settings, TimelineSampler.Listener listener) {
        return run(mode, settings, listener, () -> {
        });
    }

    /**
     * Runs and measures {@code mode}, calling {@code beforeStart} once the callee is idle and the baseline taken,
     * right before the time series and the submissions start (a replica waits there for the others).
     * @throws RunInProgressException when another run is in progress
     */
    public RunReport run(Mode mode, RunSettings settings, TimelineSampler.Listener listener, Runnable beforeStart) {
        if (!this.running.tryLock()) {
            throw new RunInProgressException();
        }
        try {
            return measure(mode, settings, listener, beforeStart);
        }
        finally {
            this.running.unlock();
        }
    }

    /**
     * Checks up front that every mode can run here, so a comparison does not fail half-way.
     * @throws SampleArgumentException naming the mode that cannot run and why
     */
    public void checkRunnable(List<Mode> modes) {
        checkRunnable(modes, false);
    }

    /**
     * Checks up front that every mode can run here or, in a comparison with several replicas, in the replicas, which
     * have this application's settings.
     * @param redisStartedLater whether the comparison starts a redis-server for its replicas, so that
     * {@code loom-bulkhead-cluster} needs nothing here but the starter
     * @throws SampleArgumentException naming the mode that cannot run and why
     */
    public void checkRunnable(List<Mode> modes, boolean redisStartedLater) {
        for (Mode mode : modes) {
            whyNotRunnable(mode, redisStartedLater).ifPresent((reason) -> {
                throw new SampleArgumentException(
                        "loom.sample.modes contains " + mode + ", which cannot run: " + reason + " Or leave the mode out.");
            });
        }
    }

    /**
     * Why {@code mode} cannot run in this application (the starter is off, Redis is missing, a Netflix mode on a JDK
     * before 24) and what to set, if it cannot.
     */
    public Optional<String> whyNotRunnable(Mode mode) {
        return whyNotRunnable(mode, false);
    }

    private Optional<String> whyNotRunnable(Mode mode, boolean redisStartedLater) {
        Optional<String> jdk = mode.whyNotOn(Runtime.version().feature());
        if (jdk.isPresent()) {
            return jdk;
        }
        try {
            switch (mode) {
                case LOOM_BULKHEAD_HTTP -> this.modes.httpBulkhead();
                case LOOM_BULKHEAD_ADAPTIVE -> this.modes.adaptiveBulkhead();
                case LOOM_BULKHEAD_CLUSTER -> {
                    if (redisStartedLater) {
                        this.modes.requireStarter(mode);
                    }
                    else {
                        this.modes.clusterBulkhead();
                    }
                }
                default -> {
                    // Every other mode needs nothing but the callee.
                }
            }
            return Optional.empty();
        }
        catch (IllegalStateException ex) {
            return Optional.of(ex.getMessage() + ".");
        }
    }

    /** The algorithm of {@code loom-bulkhead-adaptive}'s bulkhead, or {@code null} when it has none. */
    public @Nullable String adaptiveAlgorithm() {
        return this.modes.adaptiveAlgorithm();
    }

    /** Whether a run is in progress right now. */
    public boolean isRunning() {
        return this.running.isLocked();
    }

    /** Runs {@code mode} briefly with calls that do not wait at the callee, to warm up both JVMs. */
    public void warmUp(Mode mode, int requests, int limit, Duration deadline) {
        if (!this.running.tryLock()) {
            throw new RunInProgressException();
        }
        try {
            CallRecorder recorder = new CallRecorder(mode.id(), requests, null);
            try (ConcurrencyStrategy strategy = this.modes.create(mode, requests, limit, deadline)) {
                submitAndAwait(strategy, recorder, this.calls.call(mode, true), deadline);
            }
        }
        finally {
            this.running.unlock();
        }
    }

    private RunReport measure(Mode mode, RunSettings settings, TimelineSampler.Listener listener,
            Runnable beforeStart) {
        this.calls.awaitIdleCallee(settings.deadline());
        this.calls.closeIdleConnections();
        CallRecorder recorder = new CallRecorder(mode.id(), settings.requests(), this.registry);
        Baseline baseline = baseline();
        try (ConcurrencyStrategy strategy = this.modes.create(mode, settings.requests(), settings.limit(),
                settings.deadline())) {
            // Unbounded, every call is on the wire: a pause would let calls that timed out during it read answers
            // that arrived meanwhile and count as succeeded, so that mode is not paused for the heap probe.
            boolean probeHeap = settings.retainedHeap() && mode.isBounded();
            beforeStart.run();
            if (settings.schedulesCapacity()) {
                // Before the clocks start: the time series and the duration count from the first submission.
                this.calls.scheduleCapacity(settings.capacity(), settings.calleeLatency());
            }
            TimelineSampler.Sampling sampling = this.sampler.start(recorder, probeHeap ? baseline.heapUsed() : null,
                    strategy::limit, listener);
            try {
                return runSampled(mode, settings, strategy, recorder, baseline, sampling);
            }
            finally {
                // A run that failed half-way stops its time series too; after stop() this does nothing.
                sampling.cancel();
            }
        }
    }

    /** The run while its time series is sampled: the submissions, the wait, the report. */
    private RunReport runSampled(Mode mode, RunSettings settings, ConcurrencyStrategy strategy,
            CallRecorder recorder, Baseline baseline, TimelineSampler.Sampling sampling) {
        long start = System.nanoTime();
        recorder.start();
        CompletableFuture<?>[] futures = submit(strategy, recorder, this.calls.call(mode, false));
        boolean finished = await(futures, settings.deadline().minusNanos(System.nanoTime() - start));
        long end = System.nanoTime();
        long durationNanos = end - start;
        // At the mode's end, before its measurements are read: no latency beyond the duration, and the last point of
        // the time series counts them.
        int abandoned = finished ? 0 : recorder.abandonUnfinished(end);
        // Read before the executor closes: the pool's threads still exist, as in the reference's jcmd diff.
        ThreadMemory threads = this.nativeMemory.threadDiff();
        TimelineSampler.Result series = sampling.stop(threads);
        if (!finished) {
            logger.warn("Mode " + mode + ": " + abandoned + " requests had not ended after " + settings.deadline()
                    + "; counted as failed (other)");
        }
        return report(mode, recorder, baseline, durationNanos, settings.littlesLawBound(), threads, series);
    }

    /** Starts every mode from the same state: a full GC, a fresh native memory baseline, a new thread peak. */
    private Baseline baseline() {
        long heapUsed = this.jvm.heapUsedAfterFullGc();
        GcTotals gc = this.jvm.gcTotals();
        long cpuNanos = this.jvm.processCpuNanos();
        this.nativeMemory.baseline();
        int threads = this.jvm.platformThreads();
        this.jvm.resetPeakPlatformThreads();
        return new Baseline(heapUsed, gc, cpuNanos, threads);
    }

    private RunReport report(Mode mode, CallRecorder recorder, Baseline baseline, long durationNanos, Duration bound,
            @Nullable ThreadMemory threads, TimelineSampler.Result series) {
        int peakThreads = Math.max(this.jvm.peakPlatformThreads(), baseline.platformThreads());
        GcTotals gc = this.jvm.gcTotals().minus(baseline.gc()).minus(series.probeGc());
        long cpuMs = (baseline.cpuNanos() >= 0)
                ? TimeUnit.NANOSECONDS.toMillis(this.jvm.processCpuNanos() - baseline.cpuNanos()) : -1;
        CallRecorder.Summary summary = recorder.summary();
        RunReport.Failures failures = new RunReport.Failures(summary.failures(FailureCause.READ_TIMEOUT),
                summary.failures(FailureCause.CONNECT), summary.failures(FailureCause.REJECTED),
                summary.failures(FailureCause.OTHER));
        int requests = recorder.requests();
        long durationMs = TimeUnit.NANOSECONDS.toMillis(durationNanos);
        return new RunReport(mode.id(), requests, summary.succeeded(), summary.failed(), failures,
                (double) summary.succeeded() / requests, durationMs, bound.toMillis(),
                (double) bound.toNanos() / Math.max(durationNanos, 1), summary.p50Ms(),
                summary.p99Ms(), peakThreads, baseline.platformThreads(), recorder.peakVirtualThreads(),
                series.peakInFlight(), series.peakHeapUsed(), baseline.heapUsed(), series.retainedHeap(),
                series.probeGc().timeMs(), series.peakStackReservedDelta(),
                (threads != null) ? threads.stackCommittedDeltaBytes() : null,
                (threads != null) ? threads.threadsDelta() : null, gc.count(), gc.timeMs(), cpuMs, series.points());
    }

    private void submitAndAwait(ConcurrencyStrategy strategy, CallRecorder recorder, Runnable call, Duration deadline) {
        if (!await(submit(strategy, recorder, call), deadline)) {
            recorder.abandonUnfinished();
        }
    }

    private static CompletableFuture<?>[] submit(ConcurrencyStrategy strategy, CallRecorder recorder, Runnable call) {
        int requests = recorder.requests();
        CompletableFuture<?>[] futures = new CompletableFuture<?>[requests];
        for (int i = 0; i < requests; i++) {
            Runnable task = recorder.task(i, strategy.decorate(call));
            recorder.submitted(i);
            try {
                futures[i] = CompletableFuture.runAsync(task, strategy.executor());
            }
            catch (RejectedExecutionException ex) {
                recorder.failed(i, ex);
                futures[i] = CompletableFuture.completedFuture(null);
            }
        }
        return futures;
    }

    /** Waits for all futures like {@code allOf(...).join()}, but at most {@code timeout}. */
    private static boolean await(CompletableFuture<?>[] futures, Duration timeout) {
        try {
            CompletableFuture.allOf(futures).get(Math.max(timeout.toNanos(), 0), TimeUnit.NANOSECONDS);
            return true;
        }
        catch (ExecutionException ex) {
            // The tasks record their own failures; an Error escaping one is recorded too.
            return true;
        }
        catch (TimeoutException ex) {
            return false;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the requests to end", ex);
        }
    }

    /** The state of this JVM right before a mode. */
    private record Baseline(long heapUsed, GcTotals gc, long cpuNanos, int platformThreads) {
    }

    /**
     * How one run is sized.
     *
     * @param requests requests submitted at once
     * @param limit maximum concurrent calls of a bounded mode
     * @param deadline upper bound for the run; also the longest a task waits for a permit
     * @param retainedHeap whether to measure the heap held by the submitted work with a full GC
     * @param capacity the callee's capacity over the run
     * @param calleeLatency time the callee takes per request
     * @param schedulesCapacity whether the run hands the callee {@code capacity} (and checks its latency); not in a
     * replica, whose comparison does so for all replicas at once
     */
    public record RunSettings(int requests, int limit, Duration deadline, boolean retainedHeap,
            CapacitySchedule capacity, Duration calleeLatency, boolean schedulesCapacity) {

        /** requests / capacity × latency, piecewise when the capacity changes. */
        public Duration littlesLawBound() {
            return this.capacity.littlesLawBound(this.requests, this.calleeLatency);
        }
    }
}
