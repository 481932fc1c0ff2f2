package io.github.loombulkhead;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.github.loombulkhead.Awaits.eventually;
import static io.github.loombulkhead.BoundedVirtualExecutorStressTest.awaitUninterruptibly;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Start order of waiting work: {@code fair(true)} starts it in arrival order (FIFO);
 * {@code fair(false)} hands each free permit to the newest waiter (LIFO), which keeps latency low for
 * fresh work under overload at the price of starving the oldest (they then time out).
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class BoundedVirtualExecutorOrderTest {

    private static final int SUBMITTING_THREADS = 4;

    private static final int TASKS_PER_THREAD = 50;

    private static final int TASKS = SUBMITTING_THREADS * TASKS_PER_THREAD;

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void fairExecutorStartsTasksInSubmissionOrder(Submitters submitters) throws Exception {
        assertThat(startOrder(submitters, true)).containsExactlyElementsOf(ascending(TASKS));
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void unfairExecutorStartsTheNewestWaitingTaskFirst(Submitters submitters) throws Exception {
        assertThat(startOrder(submitters, false)).containsExactlyElementsOf(descending(TASKS));
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void defaultIsFair(Submitters submitters) throws Exception {
        assertThat(BulkheadConfig.ofDefaults().isFair()).isTrue();
        assertThat(startOrder(submitters, null)).containsExactlyElementsOf(ascending(TASKS));
    }

    /**
     * Holds the only permit, lets several threads submit tasks numbered in the order in which they
     * were submitted (a lock makes "submitted first" well defined across threads), then frees the
     * permit and records the order in which the tasks start.
     */
    private List<Integer> startOrder(Submitters submitters, Boolean fair) throws Exception {
        BoundedVirtualExecutor.Builder builder = BoundedVirtualExecutor.builder("order")
            .maxConcurrentCalls(1)
            .queueCapacity(TASKS)
            .maxWaitDuration(Duration.ofMinutes(1));
        if (fair != null) {
            builder.fair(fair);
        }
        Queue<Integer> started = new ConcurrentLinkedQueue<>();
        CountDownLatch gate = new CountDownLatch(1);
        ReentrantLock submission = new ReentrantLock();
        int[] next = new int[1];
        try (BoundedVirtualExecutor executor = builder.build()) {
            executor.execute(() -> awaitUninterruptibly(gate));
            submitters.runConcurrently(SUBMITTING_THREADS, (submitter) -> {
                for (int i = 0; i < TASKS_PER_THREAD; i++) {
                    submission.lock();
                    try {
                        int sequence = next[0]++;
                        if (sequence % 2 == 0) {
                            executor.execute(() -> started.add(sequence));
                        }
                        else {
                            executor.submit(() -> started.add(sequence));
                        }
                    }
                    finally {
                        submission.unlock();
                    }
                    Thread.yield();
                }
            });
            assertThat(started).isEmpty();
            assertThat(executor.getBulkhead().getWaitingCount()).isEqualTo(TASKS);
            gate.countDown();
        }
        return List.copyOf(started);
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void fairBulkheadHandsPermitsToParkedCallersAndQueuedTasksInArrivalOrder(Submitters callers) throws Exception {
        Bulkhead bulkhead = new Bulkhead("shared-order", BulkheadConfig.custom().maxConcurrentCalls(1).build());
        assertThat(sharedArrivalOrder(bulkhead, callers)).containsExactlyElementsOf(ascending(12));
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void unfairBulkheadHandsPermitsToTheNewestWaiterFirst(Submitters callers) throws Exception {
        Bulkhead bulkhead = new Bulkhead("shared-lifo",
                BulkheadConfig.custom().maxConcurrentCalls(1).fair(false).build());
        assertThat(sharedArrivalOrder(bulkhead, callers)).containsExactlyElementsOf(descending(12));
    }

    /**
     * One bulkhead, one queue: threads parked in {@code acquirePermit()} alternate with tasks queued
     * in an executor on the same bulkhead; returns the order in which they got their permits.
     */
    private List<Integer> sharedArrivalOrder(Bulkhead bulkhead, Submitters callers) throws Exception {
        Queue<Integer> started = new ConcurrentLinkedQueue<>();
        List<Submitters.Started<Object>> parked = new ArrayList<>();
        bulkhead.acquirePermit();
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.of(bulkhead)) {
            for (int i = 0; i < 12; i++) {
                int arrival = i;
                if (i % 2 == 0) {
                    parked.add(callers.call(() -> {
                        bulkhead.acquirePermit();
                        try {
                            started.add(arrival);
                        }
                        finally {
                            bulkhead.onComplete(0);
                        }
                        return null;
                    }));
                }
                else {
                    executor.execute(() -> started.add(arrival));
                }
                eventually().until(() -> bulkhead.getWaitingCount() == arrival + 1);
            }
            bulkhead.onComplete(0);
            for (Submitters.Started<Object> caller : parked) {
                caller.result().get(30, TimeUnit.SECONDS);
            }
        }
        assertThat(bulkhead.getActiveCount()).isZero();
        return List.copyOf(started);
    }

    private static List<Integer> ascending(int count) {
        return IntStream.range(0, count).boxed().toList();
    }

    private static List<Integer> descending(int count) {
        return IntStream.range(0, count).map((i) -> count - 1 - i).boxed().toList();
    }
}
