package io.github.loombulkhead.benchmarks.memory;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import tools.jackson.databind.json.JsonMapper;

/**
 * Measures the heap that one task waiting for a permit costs with each mode. Run it in a fresh JVM per
 * measurement with {@code -XX:+UseSerialGC}, so that "used after {@code System.gc()}" is the live heap:
 * {@code java -XX:+UseSerialGC -Xmx4g -cp benchmarks.jar ...WaitingTaskMemory <mode> <tasks>}.
 * It prints one line {@code RESULT {json}} with a {@link MemoryResult}.
 *
 * <p>Steps: {@value #LIMIT} tasks take every permit and block; heap after GC is the baseline; then N more
 * tasks are submitted and we wait until each is really waiting (queued, or its thread parked); heap after
 * GC again; the difference divided by N is the cost of one waiting task, the task object included. Finally
 * the holders are released and every waiting task must run.
 */
public final class WaitingTaskMemory {

    /** The concurrency limit of every mode. */
    public static final int LIMIT = 100;

    /** Unmeasured warm-up rounds before the measured one. */
    public static final int WARMUP_ROUNDS = 3;

    /** Waiting tasks in each warm-up round (fewer if the measurement itself has fewer). */
    public static final int WARMUP_TASKS = 100_000;

    private static final long SETTLE_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(5);

    private WaitingTaskMemory() {
    }

    /** The waiting strategies compared: its modes, the word the sample uses for the ways of bounding calls it compares. */
    public enum Mode {

        /** {@link BoundedVirtualExecutor}: a waiting task is a queue entry, it owns no thread. */
        loomBulkhead,

        /** A virtual thread per task blocked in {@code Semaphore(100).acquire()}. */
        semaphoreVirtualThreads,

        /** A virtual thread per task blocked in a resilience4j {@code SemaphoreBulkhead}. */
        resilience4jVirtualThreads,

        /** {@code SimpleAsyncTaskExecutor} (virtual, limit 100): a waiting task is a blocked submitter thread. */
        springSimpleAsync,

        /** {@code Executors.newFixedThreadPool(100)}: a waiting task is a {@code LinkedBlockingQueue} node. */
        threadPool;

        Scenario create(int tasks) {
            return switch (this) {
                case loomBulkhead -> new LoomScenario(tasks);
                case semaphoreVirtualThreads -> new SemaphoreScenario(tasks);
                case resilience4jVirtualThreads -> new Resilience4jScenario(tasks);
                case springSimpleAsync -> new SpringSimpleAsyncScenario(tasks);
                case threadPool -> new ThreadPoolScenario(tasks);
            };
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: WaitingTaskMemory <mode> <tasks>; modes: "
                    + java.util.Arrays.toString(Mode.values()));
        }
        Mode mode = parse(args[0]);
        int tasks = Integer.parseInt(args[1]);
        MemoryResult result = measure(mode, tasks);
        System.out.println("RESULT " + JsonMapper.shared().writeValueAsString(result));
    }

    private static Mode parse(String name) {
        try {
            return Mode.valueOf(name);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("Unknown mode '" + name + "'; use one of "
                    + java.util.Arrays.toString(Mode.values()), ex);
        }
    }

    /**
     * Runs one measurement in this JVM (exact only with a collector whose full GC leaves just live objects),
     * after {@value #WARMUP_ROUNDS} unmeasured warm-up rounds of up to {@value #WARMUP_TASKS} tasks: a thread
     * that parks while its code is still interpreted keeps larger frames on the heap than one parking in
     * compiled code (cold, a parked virtual thread measured about twice its warm size), and a server's code is warm.
     */
    public static MemoryResult measure(Mode mode, int tasks) throws InterruptedException {
        if (tasks < 1) {
            throw new IllegalArgumentException("tasks must be at least 1 but was " + tasks);
        }
        for (int i = 0; i < WARMUP_ROUNDS; i++) {
            round(mode, Math.min(tasks, WARMUP_TASKS), false);
        }
        return round(mode, tasks, true);
    }

    private static MemoryResult round(Mode mode, int tasks, boolean measureHeap)
            throws InterruptedException {
        Scenario scenario = mode.create(tasks);
        try {
            scenario.occupy();
            long baseline = measureHeap ? usedHeapAfterGc() : 0;
            long start = System.nanoTime();
            for (int i = 0; i < tasks; i++) {
                scenario.submit(i);
            }
            awaitCondition(scenario::allWaiting, mode + ": " + tasks + " tasks waiting");
            double submitMillis = (System.nanoTime() - start) / 1e6;
            long loaded = measureHeap ? usedHeapAfterGc() : 0;
            scenario.release.countDown();
            awaitCondition(() -> scenario.ran.sum() == tasks, mode + ": all " + tasks + " tasks run");
            return new MemoryResult(mode.name(), tasks, baseline, loaded, (double) (loaded - baseline) / tasks,
                    submitMillis, scenario.ran.sum());
        }
        finally {
            scenario.release.countDown();
            scenario.shutdown();
        }
    }

    static long usedHeapAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    private static void awaitCondition(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + SETTLE_TIMEOUT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    /** One mode set up for one measurement. */
    abstract static class Scenario {

        final int tasks;

        final CountDownLatch release = new CountDownLatch(1);

        final CountDownLatch holding = new CountDownLatch(LIMIT);

        final LongAdder ran = new LongAdder();

        /** Threads of the waiting tasks where there are any; allocated before the baseline for every mode. */
        final Thread[] threads;

        Scenario(int tasks) {
            this.tasks = tasks;
            this.threads = new Thread[tasks];
        }

        /** Takes every permit with {@value #LIMIT} tasks that block until {@link #release}. */
        abstract void occupy() throws InterruptedException;

        /** Submits waiting task number {@code i}. */
        abstract void submit(int i);

        /** Whether all submitted tasks are waiting now. */
        abstract boolean allWaiting();

        abstract void shutdown();

        /** The task a user submits; one small object per task, the same for every mode. */
        Runnable newTask() {
            return () -> this.ran.increment();
        }

        void hold() {
            this.holding.countDown();
            boolean interrupted = false;
            for (;;) {
                try {
                    this.release.await();
                    break;
                }
                catch (InterruptedException ex) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        boolean allThreadsParked() {
            for (Thread thread : this.threads) {
                if (thread == null) {
                    return false;
                }
                Thread.State state = thread.getState();
                if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
                    return false;
                }
            }
            return true;
        }
    }

    static final class LoomScenario extends Scenario {

        private final BoundedVirtualExecutor executor;

        LoomScenario(int tasks) {
            super(tasks);
            this.executor = BoundedVirtualExecutor.builder("memory")
                .maxConcurrentCalls(LIMIT)
                .queueCapacity(tasks)
                .maxWaitDuration(Duration.ofHours(1))
                .build();
        }

        @Override
        void occupy() throws InterruptedException {
            for (int i = 0; i < LIMIT; i++) {
                this.executor.execute(this::hold);
            }
            this.holding.await();
        }

        @Override
        void submit(int i) {
            this.executor.execute(newTask());
        }

        @Override
        boolean allWaiting() {
            return this.executor.getBulkhead().getWaitingCount() == this.tasks;
        }

        @Override
        void shutdown() {
            this.executor.close();
        }
    }

    static final class SemaphoreScenario extends Scenario {

        private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

        private final Semaphore semaphore = new Semaphore(LIMIT);

        SemaphoreScenario(int tasks) {
            super(tasks);
        }

        @Override
        void occupy() throws InterruptedException {
            for (int i = 0; i < LIMIT; i++) {
                this.executor.execute(() -> limited(this::hold));
            }
            this.holding.await();
        }

        @Override
        void submit(int i) {
            Runnable task = newTask();
            this.executor.execute(() -> {
                this.threads[i] = Thread.currentThread();
                limited(task);
            });
        }

        private void limited(Runnable task) {
            this.semaphore.acquireUninterruptibly();
            try {
                task.run();
            }
            finally {
                this.semaphore.release();
            }
        }

        @Override
        boolean allWaiting() {
            return this.semaphore.getQueueLength() == this.tasks && allThreadsParked();
        }

        @Override
        void shutdown() {
            this.executor.close();
        }
    }

    static final class Resilience4jScenario extends Scenario {

        private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

        private final Bulkhead bulkhead = Bulkhead.of("memory",
                BulkheadConfig.custom().maxConcurrentCalls(LIMIT).maxWaitDuration(Duration.ofHours(1)).build());

        Resilience4jScenario(int tasks) {
            super(tasks);
        }

        @Override
        void occupy() throws InterruptedException {
            for (int i = 0; i < LIMIT; i++) {
                this.executor.execute(() -> this.bulkhead.executeRunnable(this::hold));
            }
            this.holding.await();
        }

        @Override
        void submit(int i) {
            Runnable task = newTask();
            this.executor.execute(() -> {
                this.threads[i] = Thread.currentThread();
                this.bulkhead.executeRunnable(task);
            });
        }

        @Override
        boolean allWaiting() {
            return allThreadsParked();
        }

        @Override
        void shutdown() {
            this.executor.close();
        }
    }

    /**
     * The executor blocks the submitting thread when the limit is reached, so N waiting tasks need N blocked
     * submitters: here N virtual threads, each parked inside {@code execute()}. With one submitting thread, only
     * one task could ever wait and the rest would not be submitted at all (back-pressure on the caller).
     */
    static final class SpringSimpleAsyncScenario extends Scenario {

        private final SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("memory-");

        private final ExecutorService submitters = Executors.newVirtualThreadPerTaskExecutor();

        SpringSimpleAsyncScenario(int tasks) {
            super(tasks);
            this.executor.setVirtualThreads(true);
            this.executor.setConcurrencyLimit(LIMIT);
        }

        @Override
        void occupy() throws InterruptedException {
            for (int i = 0; i < LIMIT; i++) {
                this.executor.execute(this::hold);
            }
            this.holding.await();
        }

        @Override
        void submit(int i) {
            Runnable task = newTask();
            this.submitters.execute(() -> {
                this.threads[i] = Thread.currentThread();
                this.executor.execute(task);
            });
        }

        @Override
        boolean allWaiting() {
            return allThreadsParked();
        }

        @Override
        void shutdown() {
            this.submitters.close();
            this.executor.close();
        }
    }

    static final class ThreadPoolScenario extends Scenario {

        private final ThreadPoolExecutor pool = (ThreadPoolExecutor) Executors.newFixedThreadPool(LIMIT);

        ThreadPoolScenario(int tasks) {
            super(tasks);
        }

        @Override
        void occupy() throws InterruptedException {
            for (int i = 0; i < LIMIT; i++) {
                this.pool.execute(this::hold);
            }
            this.holding.await();
        }

        @Override
        void submit(int i) {
            this.pool.execute(newTask());
        }

        @Override
        boolean allWaiting() {
            return this.pool.getQueue().size() == this.tasks;
        }

        @Override
        void shutdown() {
            this.pool.close();
        }
    }
}
