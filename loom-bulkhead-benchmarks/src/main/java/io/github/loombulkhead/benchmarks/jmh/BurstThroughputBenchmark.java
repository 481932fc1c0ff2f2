package io.github.loombulkhead.benchmarks.jmh;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Submits {@code tasks} short tasks at once with at most {@value #LIMIT} running, and waits for all of them.
 * One operation is one whole burst; each method returns how many tasks completed (a smoke test checks it).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class BurstThroughputBenchmark {

    /** The concurrency limit every alternative enforces. */
    public static final int LIMIT = 100;

    /** Long enough that no alternative ever times a task out: every task must run. */
    private static final Duration NO_TIMEOUT = Duration.ofMinutes(10);

    @Param("100000")
    public int tasks;

    @Param({ "cpu", "park" })
    public Work work;

    /** The pattern the Java documentation recommends: a virtual thread per task, a semaphore inside it. */
    @Benchmark
    public long semaphoreBaseline(VirtualThreads threads) throws InterruptedException {
        Semaphore semaphore = new Semaphore(LIMIT);
        return burst(threads.executor, () -> {
            semaphore.acquireUninterruptibly();
            try {
                this.work.run();
            }
            finally {
                semaphore.release();
            }
        });
    }

    /** loom-bulkhead: waiting tasks are queue entries and get their virtual thread when a permit is free. */
    @Benchmark
    public long loomBulkhead(Loom loom) throws InterruptedException {
        return burst(loom.executor, this.work::run);
    }

    /** Spring's SimpleAsyncTaskExecutor on virtual threads with a concurrency limit: the submitter blocks. */
    @Benchmark
    public long springSimpleAsync(SpringSimpleAsync spring) throws InterruptedException {
        return burst(spring.executor, this.work::run);
    }

    /** A resilience4j SemaphoreBulkhead entered inside a virtual thread per task. */
    @Benchmark
    public long resilience4jBulkhead(VirtualThreads threads, Resilience4j resilience4j) throws InterruptedException {
        Bulkhead bulkhead = resilience4j.bulkhead;
        Runnable decorated = Bulkhead.decorateRunnable(bulkhead, this.work::run);
        return burst(threads.executor, decorated);
    }

    /** A classic fixed pool of {@value #LIMIT} platform threads with an unbounded queue. */
    @Benchmark
    public long threadPool(ThreadPool pool) throws InterruptedException {
        return burst(pool.executor, this.work::run);
    }

    /**
     * Reference, not a limiter: {@value #LIMIT} virtual threads each run {@code tasks / 100} bodies in a loop.
     * The floor for virtual threads: no thread per task, no queue, no permit hand-over.
     */
    @Benchmark
    public long referenceVirtualLoops() throws InterruptedException {
        return loops(Thread.ofVirtual().factory());
    }

    /** Reference, not a limiter: the same loops on {@value #LIMIT} platform threads. */
    @Benchmark
    public long referencePlatformLoops() throws InterruptedException {
        return loops(Thread.ofPlatform().factory());
    }

    private long loops(java.util.concurrent.ThreadFactory factory) throws InterruptedException {
        int perThread = this.tasks / LIMIT;
        LongAdder ran = new LongAdder();
        Thread[] threads = new Thread[LIMIT];
        for (int t = 0; t < LIMIT; t++) {
            threads[t] = factory.newThread(() -> {
                for (int i = 0; i < perThread; i++) {
                    this.work.run();
                    ran.increment();
                }
            });
            threads[t].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        return ran.sum();
    }

    /** Submits every task, waits for all to end, and returns how many ran without an exception. */
    private long burst(Executor executor, Runnable body) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(this.tasks);
        LongAdder failed = new LongAdder();
        for (int i = 0; i < this.tasks; i++) {
            executor.execute(() -> {
                try {
                    body.run();
                }
                catch (RuntimeException ex) {
                    failed.increment();
                }
                finally {
                    done.countDown();
                }
            });
        }
        done.await();
        return this.tasks - failed.sum();
    }

    /** {@code Executors.newVirtualThreadPerTaskExecutor()}. */
    @State(Scope.Benchmark)
    public static class VirtualThreads {

        ExecutorService executor;

        @Setup(Level.Trial)
        public void setUp() {
            this.executor = Executors.newVirtualThreadPerTaskExecutor();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            this.executor.close();
        }
    }

    /** A fair {@link BoundedVirtualExecutor} (the default) whose queue holds a whole burst. */
    @State(Scope.Benchmark)
    public static class Loom {

        BoundedVirtualExecutor executor;

        @Setup(Level.Trial)
        public void setUp(BurstThroughputBenchmark benchmark) {
            this.executor = BoundedVirtualExecutor.builder("burst")
                .maxConcurrentCalls(LIMIT)
                .queueCapacity(benchmark.tasks)
                .maxWaitDuration(NO_TIMEOUT)
                .build();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            this.executor.close();
        }
    }

    /** {@code SimpleAsyncTaskExecutor} with virtual threads and {@code concurrencyLimit} {@value #LIMIT}. */
    @State(Scope.Benchmark)
    public static class SpringSimpleAsync {

        SimpleAsyncTaskExecutor executor;

        @Setup(Level.Trial)
        public void setUp() {
            this.executor = new SimpleAsyncTaskExecutor("burst-");
            this.executor.setVirtualThreads(true);
            this.executor.setConcurrencyLimit(LIMIT);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            this.executor.close();
        }
    }

    /** resilience4j's default (fair) SemaphoreBulkhead, waiting up to {@link #NO_TIMEOUT}. */
    @State(Scope.Benchmark)
    public static class Resilience4j {

        Bulkhead bulkhead;

        @Setup(Level.Trial)
        public void setUp() {
            this.bulkhead = Bulkhead.of("burst", BulkheadConfig.custom()
                .maxConcurrentCalls(LIMIT)
                .maxWaitDuration(NO_TIMEOUT)
                .build());
        }
    }

    /** {@code Executors.newFixedThreadPool(100)}. */
    @State(Scope.Benchmark)
    public static class ThreadPool {

        ExecutorService executor;

        @Setup(Level.Trial)
        public void setUp() {
            this.executor = Executors.newFixedThreadPool(LIMIT);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            this.executor.close();
        }
    }
}
