package io.github.loombulkhead.limit;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads feed samples at once (and report the calls' starts), released together by a latch: the limit stays
 * within its bounds at every read, and the monotonic invariants hold (drops alone never raise it, steady successes alone never lower it).
 */
class LimitAlgorithmConcurrencyTest {

    private static final int THREADS = 8;

    private static final int SAMPLES = 20_000;

    private static final int MAX_SAMPLES = 50 * SAMPLES;

    private static final long MS = 1_000_000;

    @ParameterizedTest
    @EnumSource(AdaptiveLimitConfig.Algorithm.class)
    void staysWithinItsBoundsUnderConcurrentMixedSamples(AdaptiveLimitConfig.Algorithm name) throws Exception {
        LimitAlgorithm algorithm = LimitAlgorithm.of(
                AdaptiveLimitConfig.custom().algorithm(name).minLimit(3).initialLimit(40).maxLimit(300).build());
        AtomicInteger outOfBounds = new AtomicInteger();
        run((thread, i, random) -> {
            long start = (long) i * MS;
            long rtt = (50 + random.nextInt(450)) * MS;
            int inflight = 1 + random.nextInt(Math.max(1, algorithm.getLimit()));
            int pick = random.nextInt(10);
            Outcome outcome = (pick == 0) ? Outcome.DROPPED : (pick == 1) ? Outcome.IGNORED : Outcome.SUCCESS;
            algorithm.onStart(start, inflight);
            int limit = algorithm.onSample(start, rtt, inflight, outcome);
            if (limit < 3 || limit > 300 || algorithm.getLimit() < 3 || algorithm.getLimit() > 300) {
                outOfBounds.incrementAndGet();
            }
        });
        assertThat(outOfBounds).hasValue(0);
    }

    /**
     * Every call drops: the limit never rises and falls to its minimum. The calls' times come from one clock shared by
     * all threads, as {@code System.nanoTime()} is in a bulkhead: a decrease is made as of the latest call that asked
     * for it, and calls that started before it describe the old limit; with a clock per thread, a thread that ran
     * ahead while the lock holder was descheduled would stamp a decrease past every call the others had left. And the
     * threads go on until the minimum is reached (bounded): a decrease still pending when the last call of the run
     * arrives is the next call's to apply, and under steady overload there is always a next call.
     */
    @ParameterizedTest
    @EnumSource(AdaptiveLimitConfig.Algorithm.class)
    void concurrentDropsNeverRaiseTheLimit(AdaptiveLimitConfig.Algorithm name) throws Exception {
        LimitAlgorithm algorithm = LimitAlgorithm.of(AdaptiveLimitConfig.custom().algorithm(name).initialLimit(500).build());
        AtomicInteger raised = new AtomicInteger();
        AtomicLong clock = new AtomicLong();
        int[][] lastSeen = new int[THREADS][1];
        run((thread, i, random) -> {
            // Eight callers, each finishing a call every 10 ms, on one clock.
            long start = clock.getAndIncrement() * 10 * MS / THREADS;
            int limit = algorithm.onSample(start, 100 * MS, algorithm.getLimit(), Outcome.DROPPED);
            if (lastSeen[thread][0] != 0 && limit > lastSeen[thread][0]) {
                raised.incrementAndGet();
            }
            lastSeen[thread][0] = limit;
        }, () -> algorithm.getLimit() > 1);
        assertThat(raised).hasValue(0);
        assertThat(algorithm.getLimit()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(AdaptiveLimitConfig.Algorithm.class)
    void concurrentSteadySuccessesNeverLowerTheLimit(AdaptiveLimitConfig.Algorithm name) throws Exception {
        LimitAlgorithm algorithm = LimitAlgorithm.of(AdaptiveLimitConfig.custom().algorithm(name).build());
        AtomicInteger lowered = new AtomicInteger();
        int[][] lastSeen = new int[THREADS][1];
        run((thread, i, random) -> {
            int limit = algorithm.onSample((long) i * MS, 100 * MS, algorithm.getLimit(), Outcome.SUCCESS);
            if (limit < lastSeen[thread][0]) {
                lowered.incrementAndGet();
            }
            lastSeen[thread][0] = limit;
        });
        assertThat(lowered).hasValue(0);
        assertThat(algorithm.getLimit()).isEqualTo(1000);
    }

    private static void run(Step step) throws Exception {
        run(step, () -> false);
    }

    /**
     * Each thread takes {@link #SAMPLES} steps, then more while {@code more} holds, up to {@link #MAX_SAMPLES} each.
     */
    private static void run(Step step, BooleanSupplier more) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    SplittableRandom random = new SplittableRandom(thread);
                    go.await();
                    for (int i = 0; i < SAMPLES || (i < MAX_SAMPLES && more.getAsBoolean()); i++) {
                        step.take(thread, i, random);
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    @FunctionalInterface
    private interface Step {

        void take(int thread, int index, SplittableRandom random);
    }
}
