package io.github.loombulkhead.sample.measure;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Records what happened to each request of one mode: submitted, ended (succeeded or failed by cause), its
 * latency from the mode's start to its outcome, and how many tasks ran on virtual threads at once.
 */
public final class CallRecorder {

    private static final int PENDING = 0;

    private static final int SUCCEEDED = 1;

    private final String mode;

    private volatile long startNanos = System.nanoTime();

    private final int requests;

    private final AtomicLongArray latencyNanos;

    /** Per request: PENDING, SUCCEEDED, or 2 + the failure cause's ordinal. */
    private final AtomicIntegerArray outcome;

    private final AtomicInteger submitted = new AtomicInteger();

    private final AtomicInteger ended = new AtomicInteger();

    private final AtomicInteger virtualThreads = new AtomicInteger();

    private final AtomicInteger peakVirtualThreads = new AtomicInteger();

    private final @Nullable Map<FailureCause, Timer> failureTimers;

    private final @Nullable Timer successTimer;

    public CallRecorder(String mode, int requests, @Nullable MeterRegistry registry) {
        this.mode = mode;
        this.requests = requests;
        this.latencyNanos = new AtomicLongArray(requests);
        this.outcome = new AtomicIntegerArray(requests);
        if (registry != null) {
            this.successTimer = timer(registry, "success");
            this.failureTimers = new EnumMap<>(FailureCause.class);
            for (FailureCause cause : FailureCause.values()) {
                this.failureTimers.put(cause, timer(registry, cause.key()));
            }
        }
        else {
            this.successTimer = null;
            this.failureTimers = null;
        }
    }

    private Timer timer(MeterRegistry registry, String outcome) {
        return Timer.builder("loom.sample.calls")
            .description("Calls to the callee fired by the sample, from the start of their batch to their outcome")
            .tag("mode", this.mode)
            .tag("outcome", outcome)
            .register(registry);
    }

    /**
     * Marks the start of the mode, right before the first submission: every request's latency is measured from
     * here, since all of them are meant to be fired at once (a submitter that blocks does not shorten them).
     */
    public void start() {
        this.startNanos = System.nanoTime();
    }

    /** Counts request {@code index} as submitted; call right before handing its task to the executor. */
    public void submitted(int index) {
        this.submitted.incrementAndGet();
    }

    /**
     * Wraps the task of request {@code index}: records its outcome and latency, and counts it as a virtual
     * thread in flight while it runs on one. Failures are recorded, not rethrown (errors are rethrown).
     */
    public Runnable task(int index, Runnable body) {
        return () -> {
            boolean virtual = Thread.currentThread().isVirtual();
            if (virtual) {
                this.peakVirtualThreads.accumulateAndGet(this.virtualThreads.incrementAndGet(), Math::max);
            }
            try {
                body.run();
                end(index, SUCCEEDED);
            }
            catch (RuntimeException ex) {
                failed(index, ex);
            }
            catch (Error ex) {
                failed(index, ex);
                throw ex;
            }
            finally {
                if (virtual) {
                    this.virtualThreads.decrementAndGet();
                }
            }
        };
    }

    /** Records request {@code index} as failed, e.g. when the executor refused it at submission. */
    public void failed(int index, Throwable failure) {
        end(index, 2 + FailureCause.of(failure).ordinal());
    }

    /** Counts every request without an outcome as failed ({@link FailureCause#OTHER}) now; returns how many. */
    public int abandonUnfinished() {
        return abandonUnfinished(System.nanoTime());
    }

    /**
     * Counts every request without an outcome as failed ({@link FailureCause#OTHER}) at {@code endNanos} (a
     * {@link System#nanoTime()} value: the mode's end, so that no latency exceeds its duration); returns how many.
     */
    public int abandonUnfinished(long endNanos) {
        int abandoned = 0;
        for (int i = 0; i < this.requests; i++) {
            if (this.outcome.get(i) == PENDING && end(i, 2 + FailureCause.OTHER.ordinal(), endNanos)) {
                abandoned++;
            }
        }
        return abandoned;
    }

    private boolean end(int index, int result) {
        return end(index, result, System.nanoTime());
    }

    private boolean end(int index, int result, long endNanos) {
        long latency = endNanos - this.startNanos;
        if (!this.outcome.compareAndSet(index, PENDING, result)) {
            return false;
        }
        this.latencyNanos.set(index, latency);
        this.ended.incrementAndGet();
        Timer timer = (result == SUCCEEDED) ? this.successTimer
                : (this.failureTimers != null) ? this.failureTimers.get(FailureCause.values()[result - 2]) : null;
        if (timer != null) {
            timer.record(latency, TimeUnit.NANOSECONDS);
        }
        return true;
    }

    /** Requests this recorder has room for. */
    public int requests() {
        return this.requests;
    }

    public int submittedCount() {
        return this.submitted.get();
    }

    public int endedCount() {
        return this.ended.get();
    }

    public int virtualThreads() {
        return this.virtualThreads.get();
    }

    public int peakVirtualThreads() {
        return this.peakVirtualThreads.get();
    }

    /** Outcome counts and latency percentiles of the requests that ended. */
    public Summary summary() {
        int succeeded = 0;
        int[] failures = new int[FailureCause.values().length];
        long[] latencies = new long[this.requests];
        int n = 0;
        for (int i = 0; i < this.requests; i++) {
            int result = this.outcome.get(i);
            if (result == PENDING) {
                continue;
            }
            if (result == SUCCEEDED) {
                succeeded++;
            }
            else {
                failures[result - 2]++;
            }
            latencies[n++] = this.latencyNanos.get(i);
        }
        long[] ended = Arrays.copyOf(latencies, n);
        Arrays.sort(ended);
        return new Summary(succeeded, failures, percentileMillis(ended, 0.50), percentileMillis(ended, 0.99));
    }

    /**
     * Nearest-rank percentile in whole milliseconds, truncated like the mode's duration so a percentile never
     * exceeds it (0 when nothing ended).
     */
    static long percentileMillis(long[] sortedNanos, double quantile) {
        if (sortedNanos.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(quantile * sortedNanos.length);
        return TimeUnit.NANOSECONDS.toMillis(sortedNanos[Math.max(rank, 1) - 1]);
    }

    /**
     * What happened to the requests.
     *
     * @param succeeded requests that got an answer
     * @param failuresByCause failed requests indexed by {@link FailureCause#ordinal()}
     * @param p50Ms median latency from the mode's start to the outcome
     * @param p99Ms 99th percentile latency from the mode's start to the outcome
     */
    public record Summary(int succeeded, int[] failuresByCause, long p50Ms, long p99Ms) {

        public int failures(FailureCause cause) {
            return this.failuresByCause[cause.ordinal()];
        }

        public int failed() {
            return Arrays.stream(this.failuresByCause).sum();
        }
    }
}
