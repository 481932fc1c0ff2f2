package io.github.loombulkhead;

import java.time.Duration;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import static io.github.loombulkhead.Awaits.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many tasks from several submitting threads: the limit is reached and never exceeded, every task
 * gets its own new virtual thread, and tasks that wait own no thread.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class BoundedVirtualExecutorStressTest {

    private static final int TASKS = 10_000;

    private static final int SUBMITTING_THREADS = 4;

    private static final int LIMIT = 8;

    /**
     * Threads that gave their permit back but have not returned yet may overlap with the threads
     * started on those permits. Such a thread is past its last blocking point, so it is mounted on a
     * carrier: there are at most as many of them as the virtual-thread scheduler has carriers.
     */
    private static final int FINISHING_THREADS = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
            Runtime.getRuntime().availableProcessors()) + 2;

    static Stream<Arguments> submittersAndFairness() {
        return Stream.of(Submitters.values())
            .flatMap((submitters) -> Stream.of(Arguments.of(submitters, true), Arguments.of(submitters, false)));
    }

    @ParameterizedTest(name = "{0} submitters, fair={1}")
    @MethodSource("submittersAndFairness")
    void runningTasksReachTheLimitAndNeverExceedIt(Submitters submitters, boolean fair) throws Exception {
        long seed = System.nanoTime();
        CountingVirtualThreadFactory threads = new CountingVirtualThreadFactory("stress-");
        ConcurrencyProbe probe = new ConcurrencyProbe();
        Set<Long> threadIds = ConcurrentHashMap.newKeySet();
        AtomicInteger platformThreadRuns = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("stress")
            .maxConcurrentCalls(LIMIT)
            .queueCapacity(TASKS)
            .maxWaitDuration(Duration.ofMinutes(2))
            .fair(fair)
            .threadFactory(threads)
            .build();
        try (executor) {
            submitters.runConcurrently(SUBMITTING_THREADS, (submitter) -> {
                Random random = new Random(seed + submitter);
                for (int i = 0; i < TASKS / SUBMITTING_THREADS; i++) {
                    long sleepNanos = (random.nextInt(4) == 0) ? 0 : random.nextLong(20_000, 400_000);
                    Runnable task = () -> {
                        probe.enter();
                        try {
                            Thread current = Thread.currentThread();
                            if (!current.isVirtual()) {
                                platformThreadRuns.incrementAndGet();
                            }
                            threadIds.add(current.threadId());
                            pause(sleepNanos);
                            finished.incrementAndGet();
                        }
                        finally {
                            probe.exit();
                        }
                    };
                    if (random.nextBoolean()) {
                        executor.execute(task);
                    }
                    else {
                        executor.submit(task);
                    }
                }
            });
        }
        Bulkhead bulkhead = executor.getBulkhead();
        System.out.printf("stress %s fair=%s seed=%d: max running %d, max virtual threads alive %d (limit %d)%n",
                submitters, fair, seed, probe.max(), threads.maxAlive(), LIMIT);
        assertThat(executor.isTerminated()).isTrue();
        assertThat(finished).hasValue(TASKS);
        assertThat(probe.max()).as("most tasks running at once").isEqualTo(LIMIT);
        assertThat(platformThreadRuns).as("tasks run on platform threads").hasValue(0);
        assertThat(threadIds).as("distinct threads that ran tasks").hasSize(TASKS);
        assertThat(threads.created()).as("threads created").isEqualTo(TASKS);
        assertThat(threads.maxAlive()).as("virtual threads alive at once").isLessThanOrEqualTo(LIMIT + FINISHING_THREADS);
        assertThat(bulkhead.getActiveCount()).isZero();
        assertThat(bulkhead.getWaitingCount()).isZero();
        assertThat(bulkhead.getAvailablePermits()).isEqualTo(LIMIT);
        assertThat(bulkhead.getPermittedCount()).isEqualTo(TASKS);
        assertThat(bulkhead.getCompletedCount()).isEqualTo(TASKS);
        assertThat(bulkhead.getRejectedCount()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void waitingTasksOwnNoThread(Submitters submitters) throws Exception {
        int limit = 4;
        int tasks = 2_000;
        CountingVirtualThreadFactory threads = new CountingVirtualThreadFactory("idle-");
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("idle")
            .maxConcurrentCalls(limit)
            .queueCapacity(tasks)
            .threadFactory(threads)
            .build();
        try (executor) {
            submitters.runConcurrently(4, (submitter) -> {
                for (int i = 0; i < tasks / 4; i++) {
                    executor.execute(() -> {
                        awaitUninterruptibly(gate);
                        ran.incrementAndGet();
                    });
                }
            });
            Bulkhead bulkhead = executor.getBulkhead();
            assertThat(bulkhead.getActiveCount()).isEqualTo(limit);
            assertThat(bulkhead.getWaitingCount()).isEqualTo(tasks - limit);
            assertThat(threads.created()).as("threads created while %d tasks wait", tasks - limit).isEqualTo(limit);
            assertThat(threads.alive()).isEqualTo(limit);
            gate.countDown();
        }
        assertThat(ran).hasValue(tasks);
        assertThat(threads.created()).isEqualTo(tasks);
        // A thread counts as alive until it returns, which is just after the executor saw its task end.
        eventually().until(() -> threads.alive() == 0);
        assertThat(threads.maxAlive()).isLessThanOrEqualTo(limit + FINISHING_THREADS);
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void defaultThreadsAreNewVirtualThreadsNamedAfterTheBulkhead(Submitters submitters) throws Exception {
        Set<Thread> seen = ConcurrentHashMap.newKeySet();
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("named").maxConcurrentCalls(2).build()) {
            submitters.runConcurrently(2, (submitter) -> {
                for (int i = 0; i < 50; i++) {
                    executor.submit(() -> seen.add(Thread.currentThread()));
                }
            });
        }
        assertThat(seen).hasSize(100).allSatisfy((thread) -> {
            assertThat(thread.isVirtual()).isTrue();
            assertThat(thread.getName()).isEqualTo("named");
        });
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void waitingTasksStartAsSoonAsAPermitIsFree(Submitters submitters) throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("handoff").maxConcurrentCalls(1).build()) {
            executor.execute(() -> awaitUninterruptibly(gate));
            var second = submitters.call(() -> executor.submit(() -> "second").get(30, TimeUnit.SECONDS));
            eventually().until(() -> executor.getBulkhead().getWaitingCount() == 1);
            assertThat(second.result()).isNotDone();
            gate.countDown();
            assertThat(second.result().get(30, TimeUnit.SECONDS)).isEqualTo("second");
        }
    }

    static void pause(long nanos) {
        if (nanos == 0) {
            Thread.yield();
            return;
        }
        try {
            Thread.sleep(Duration.ofNanos(nanos));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
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
}
