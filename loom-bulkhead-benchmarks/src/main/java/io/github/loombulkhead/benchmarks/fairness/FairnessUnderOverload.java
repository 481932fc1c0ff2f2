package io.github.loombulkhead.benchmarks.fairness;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRejectedException;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@value #CLIENTS} virtual threads loop over acquire, hold {@value #HOLD_MILLIS} ms, release against
 * {@value #PERMITS} permits (10x overload) and record how long each acquire waited.
 * Callers still waiting when the run ends get their permits as the others stop; those waits count too.
 * Run one mode per JVM: {@code FairnessUnderOverload <mode> <durationMillis> <warmupMillis>};
 * prints {@code RESULT {json}} with a {@link FairnessResult}.
 */
public final class FairnessUnderOverload {

    /** Permits of every limiter. */
    public static final int PERMITS = 100;

    /** Callers competing for them. */
    public static final int CLIENTS = 1_000;

    /** How long each caller holds a permit (a park, like blocking I/O). */
    public static final int HOLD_MILLIS = 10;

    private static final int MAX_SAMPLES = 4_000_000;

    private FairnessUnderOverload() {
    }

    /** The limiters compared: its modes, the word the sample uses for the ways of bounding calls it compares. */
    public enum Mode {

        /** loom-bulkhead, fair (FIFO, the default): {@code acquirePermit()} / {@code onComplete}. */
        loomFair,

        /** loom-bulkhead, non-fair: a released permit goes to the newest waiter. */
        loomNonFair,

        /** {@code new Semaphore(100)}: barging allowed, the usual hand-written limiter. */
        semaphoreNonFair,

        /** {@code new Semaphore(100, true)}. */
        semaphoreFair;

        Limiter create() {
            return switch (this) {
                case loomFair -> new LoomLimiter(true);
                case loomNonFair -> new LoomLimiter(false);
                case semaphoreNonFair -> new SemaphoreLimiter(new Semaphore(PERMITS));
                case semaphoreFair -> new SemaphoreLimiter(new Semaphore(PERMITS, true));
            };
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: FairnessUnderOverload <mode> <durationMillis> "
                    + "<warmupMillis>; modes: " + Arrays.toString(Mode.values()));
        }
        Mode mode;
        try {
            mode = Mode.valueOf(args[0]);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("Unknown mode '" + args[0] + "'; use one of "
                    + Arrays.toString(Mode.values()), ex);
        }
        FairnessResult result = measure(mode, Duration.ofMillis(Long.parseLong(args[1])),
                Duration.ofMillis(Long.parseLong(args[2])));
        System.out.println("RESULT " + JsonMapper.shared().writeValueAsString(result));
    }

    /** Runs the overload for {@code warmup + duration} and summarises the waits that began after warm-up. */
    public static FairnessResult measure(Mode mode, Duration duration, Duration warmup)
            throws InterruptedException {
        Limiter limiter = mode.create();
        long[] waits = new long[MAX_SAMPLES];
        AtomicInteger sampleCount = new AtomicInteger();
        LongAdder holdNanos = new LongAdder();
        LongAdder holds = new LongAdder();
        LongAdder rejected = new LongAdder();
        LongAdder lateGrants = new LongAdder();
        long begin = System.nanoTime();
        long measureFrom = begin + warmup.toNanos();
        long end = measureFrom + duration.toNanos();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < CLIENTS; c++) {
                clients.execute(() -> {
                    long arrived;
                    while ((arrived = System.nanoTime()) < end) {
                        try {
                            limiter.acquire();
                        }
                        catch (BulkheadRejectedException ex) {
                            rejected.increment();
                            continue;
                        }
                        long acquired = System.nanoTime();
                        if (acquired >= end) {
                            lateGrants.increment();
                        }
                        // Every wait that ends after warm-up counts, also one that began during warm-up:
                        // a caller starved since the start is the very thing to see.
                        if (acquired >= measureFrom) {
                            int index = sampleCount.getAndIncrement();
                            if (index < MAX_SAMPLES) {
                                waits[index] = acquired - arrived;
                            }
                        }
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(HOLD_MILLIS));
                        long held = System.nanoTime() - acquired;
                        holdNanos.add(held);
                        holds.increment();
                        limiter.release(held);
                    }
                });
            }
        }
        int n = Math.min(sampleCount.get(), MAX_SAMPLES);
        long[] sorted = Arrays.copyOf(waits, n);
        Arrays.sort(sorted);
        double meanHoldMillis = holdNanos.sum() / 1e6 / Math.max(1, holds.sum());
        double idealFifoWait = (double) (CLIENTS - PERMITS) / PERMITS * meanHoldMillis;
        double max = millis(percentile(sorted, 1.0));
        double throughput = (n - lateGrants.sum()) / (duration.toNanos() / 1e9);
        return new FairnessResult(mode.name(), PERMITS, CLIENTS, n, throughput,
                meanHoldMillis, millis(percentile(sorted, 0.50)), millis(percentile(sorted, 0.90)),
                millis(percentile(sorted, 0.99)), millis(percentile(sorted, 0.999)), max, idealFifoWait,
                max / idealFifoWait, rejected.sum());
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    /** The two operations every mode offers. */
    interface Limiter {

        void acquire();

        void release(long heldNanos);
    }

    static final class LoomLimiter implements Limiter {

        private final Bulkhead bulkhead;

        LoomLimiter(boolean fair) {
            this.bulkhead = new Bulkhead("fairness", BulkheadConfig.custom()
                .maxConcurrentCalls(PERMITS)
                .queueCapacity(CLIENTS)
                .maxWaitDuration(Duration.ofMinutes(10))
                .fair(fair)
                .build());
        }

        @Override
        public void acquire() {
            this.bulkhead.acquirePermit();
        }

        @Override
        public void release(long heldNanos) {
            this.bulkhead.onComplete(heldNanos);
        }
    }

    static final class SemaphoreLimiter implements Limiter {

        private final Semaphore semaphore;

        SemaphoreLimiter(Semaphore semaphore) {
            this.semaphore = semaphore;
        }

        @Override
        public void acquire() {
            this.semaphore.acquireUninterruptibly();
        }

        @Override
        public void release(long heldNanos) {
            this.semaphore.release();
        }
    }
}
