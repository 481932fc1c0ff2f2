package io.github.loombulkhead.sample.measure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.loombulkhead.sample.measure.JvmMetrics.GcTotals;
import io.github.loombulkhead.sample.measure.NativeMemoryTracking.ThreadMemory;
import io.github.loombulkhead.sample.report.TimelinePoint;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Takes a {@link TimelinePoint} at a fixed interval while a mode runs, on one platform thread created
 * up front so that it is part of every mode's baseline.
 */
public final class TimelineSampler implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(TimelineSampler.class);

    /** Native memory is read every this many points: it is slower to read than the MXBeans. */
    static final int NATIVE_MEMORY_EVERY = 5;

    private final JvmMetrics jvm;

    private final NativeMemoryTracking nativeMemory;

    private final HttpExchangeCounter http;

    private final Duration interval;

    private final ScheduledExecutorService scheduler;

    public TimelineSampler(JvmMetrics jvm, NativeMemoryTracking nativeMemory, HttpExchangeCounter http,
            Duration interval) {
        this.jvm = jvm;
        this.nativeMemory = nativeMemory;
        this.http = http;
        this.interval = interval;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("loom-sample-sampler").daemon(true).factory());
        // Start the thread now so the first mode's baseline already counts it.
        awaitTick(this.scheduler.submit(() -> { }));
    }

    /**
     * Starts sampling one mode; {@code onTick} sees every point (e.g. to draw progress).
     * @param heapBaseline heap used after a full GC right before the mode, to measure the heap the tasks hold
     * once the first request has ended; {@code null} not to measure it
     * @param limit the mode's limit right now, empty for a mode without one
     */
    public Sampling start(CallRecorder recorder, @Nullable Long heapBaseline, Supplier<OptionalInt> limit,
            Listener onTick) {
        Sampling sampling = new Sampling(recorder, heapBaseline, limit, onTick, System.nanoTime());
        long period = this.interval.toNanos();
        sampling.future = this.scheduler.scheduleAtFixedRate(sampling::safeTick, period, period,
                TimeUnit.NANOSECONDS);
        return sampling;
    }

    @Override
    public void close() {
        this.scheduler.shutdownNow();
    }

    private static void awaitTick(Future<?> future) {
        try {
            future.get();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the sampler", ex);
        }
        catch (ExecutionException ex) {
            throw new IllegalStateException("Sampler failed", ex.getCause());
        }
    }

    /** Receives each point as it is taken. */
    @FunctionalInterface
    public interface Listener {

        void onPoint(TimelinePoint point);

    }

    /** The sampling of one mode; only the sampler thread touches its state until {@link #stop()}. */
    public final class Sampling {

        private final CallRecorder recorder;

        private final Listener listener;

        private final Supplier<OptionalInt> limit;

        private final long startNanos;

        private final @Nullable Long heapBaseline;

        private @Nullable Long retainedHeap;

        private GcTotals probeGc = new GcTotals(0, 0);

        private final List<TimelinePoint> points = new ArrayList<>();

        private volatile @Nullable ScheduledFuture<?> future;

        private int ticks;

        private boolean failureLogged;

        private long peakHeapUsed;

        private int peakInFlight;

        private @Nullable Long peakStackReservedDelta;

        private Sampling(CallRecorder recorder, @Nullable Long heapBaseline, Supplier<OptionalInt> limit,
                Listener listener, long startNanos) {
            this.recorder = recorder;
            this.heapBaseline = heapBaseline;
            this.limit = limit;
            this.listener = listener;
            this.startNanos = startNanos;
        }

        /** A failing tick is logged and sampling goes on (a scheduled task that throws is never run again). */
        private void safeTick() {
            try {
                tick();
            }
            catch (RuntimeException ex) {
                if (!this.failureLogged) {
                    this.failureLogged = true;
                    logger.warn("Sampling the time series failed; the series has gaps", ex);
                }
            }
        }

        private void tick() {
            this.ticks++;
            int inFlight = TimelineSampler.this.http.inFlight();
            int ended = this.recorder.endedCount();
            int waiting = Math.max(0, this.recorder.submittedCount() - ended - inFlight);
            if (ended > 0 && this.heapBaseline != null && this.retainedHeap == null) {
                probeHeap(this.heapBaseline);
            }
            long heap = TimelineSampler.this.jvm.heapUsed();
            Long stack = null;
            if (this.ticks % NATIVE_MEMORY_EVERY == 0) {
                ThreadMemory memory = TimelineSampler.this.nativeMemory.threadDiff();
                stack = (memory != null) ? memory.stackReservedDeltaBytes() : null;
            }
            TimelinePoint point = new TimelinePoint(
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - this.startNanos), ended, inFlight, waiting,
                    TimelineSampler.this.jvm.platformThreads(), this.recorder.virtualThreads(), heap, stack,
                    currentLimit());
            record(point);
            this.listener.onPoint(point);
        }

        private @Nullable Integer currentLimit() {
            OptionalInt current = this.limit.get();
            return current.isPresent() ? current.getAsInt() : null;
        }

        /**
         * Once the first request has ended, every task has had a whole callee latency to start and wait: a full
         * GC then shows what the queued, parked and running tasks hold.
         */
        private void probeHeap(long baseline) {
            JvmMetrics jvm = TimelineSampler.this.jvm;
            GcTotals before = jvm.gcTotals();
            this.retainedHeap = jvm.heapUsedAfterFullGc() - baseline;
            this.probeGc = jvm.gcTotals().minus(before);
        }

        private void record(TimelinePoint point) {
            this.points.add(point);
            this.peakHeapUsed = Math.max(this.peakHeapUsed, point.heapUsedBytes());
            this.peakInFlight = Math.max(this.peakInFlight, point.inFlight());
            Long stack = point.threadStackReservedDeltaBytes();
            if (stack != null) {
                this.peakStackReservedDelta = (this.peakStackReservedDelta != null)
                        ? Math.max(this.peakStackReservedDelta, stack) : stack;
            }
        }

        /**
         * Stops sampling, adds a last point now, and returns the series. {@code endStack} is the thread memory
         * read at the end of the mode (it counts towards the peak).
         */
        public Result stop(@Nullable ThreadMemory endStack) {
            cancel();
            int inFlight = TimelineSampler.this.http.inFlight();
            int ended = this.recorder.endedCount();
            Long stack = (endStack != null) ? endStack.stackReservedDeltaBytes() : null;
            TimelinePoint last = new TimelinePoint(
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - this.startNanos), ended, inFlight,
                    Math.max(0, this.recorder.submittedCount() - ended - inFlight),
                    TimelineSampler.this.jvm.platformThreads(), this.recorder.virtualThreads(),
                    TimelineSampler.this.jvm.heapUsed(), stack, currentLimit());
            record(last);
            this.listener.onPoint(last);
            return new Result(List.copyOf(this.points), this.peakHeapUsed, this.peakInFlight,
                    this.peakStackReservedDelta, this.retainedHeap, this.probeGc);
        }

        /**
         * Stops sampling without a last point, as when the mode failed; once it returns, no tick is in progress
         * any more. Does nothing once sampling has stopped.
         */
        public void cancel() {
            ScheduledFuture<?> scheduled = this.future;
            if (scheduled != null && scheduled.cancel(false)) {
                // The scheduler runs one task at a time: once this no-op ran, no tick is in progress any more.
                awaitTick(TimelineSampler.this.scheduler.submit(() -> { }));
            }
        }
    }

    /**
     * A mode's series and the peaks seen in it.
     *
     * @param points the series
     * @param peakHeapUsed highest heap used
     * @param peakInFlight highest number of HTTP exchanges in progress
     * @param peakStackReservedDelta highest reserved thread-stack change, or {@code null} when not measured
     * @param retainedHeap heap held by the tasks once the first request ended, or {@code null} when not measured
     * @param probeGc the full GC that measured it
     */
    public record Result(List<TimelinePoint> points, long peakHeapUsed, int peakInFlight,
            @Nullable Long peakStackReservedDelta, @Nullable Long retainedHeap, GcTotals probeGc) {
    }
}
