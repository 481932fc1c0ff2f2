package io.github.loombulkhead;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.github.loombulkhead.Awaits.eventually;
import static io.github.loombulkhead.BoundedVirtualExecutorStressTest.awaitUninterruptibly;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Changing the limit at runtime: growing starts queued tasks at once, shrinking never blocks the
 * caller and takes effect as running tasks finish.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class BoundedVirtualExecutorLimitChangeTest {

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void growingTheLimitStartsQueuedTasksAtOnce(Submitters callers) throws Exception {
        RecordingListener listener = new RecordingListener();
        ConcurrencyProbe probe = new ConcurrencyProbe();
        CountDownLatch gate = new CountDownLatch(1);
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("grow").maxConcurrentCalls(2).build()) {
            Bulkhead bulkhead = executor.getBulkhead();
            bulkhead.addListener(listener);
            for (int i = 0; i < 10; i++) {
                executor.execute(() -> {
                    probe.enter();
                    try {
                        awaitUninterruptibly(gate);
                    }
                    finally {
                        probe.exit();
                    }
                });
            }
            eventually().until(() -> probe.current() == 2);
            callers.call(() -> {
                bulkhead.changeLimit(5);
                return null;
            }).result().get(30, TimeUnit.SECONDS);
            assertThat(bulkhead.getLimit()).isEqualTo(5);
            assertThat(bulkhead.getConfig().getMaxConcurrentCalls()).isEqualTo(5);
            assertThat(bulkhead.getActiveCount()).as("permits handed out by changeLimit itself").isEqualTo(5);
            assertThat(bulkhead.getWaitingCount()).isEqualTo(5);
            eventually().until(() -> probe.current() == 5);
            assertThat(listener.events).extracting(RecordingListener.Event::type).contains("limit 2 -> 5");
            gate.countDown();
        }
        assertThat(probe.max()).isEqualTo(5);
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void shrinkingTheLimitNeverBlocksAndTakesEffectAsRunningTasksFinish(Submitters callers) throws Exception {
        int tasks = 12;
        ConcurrencyProbe probe = new ConcurrencyProbe();
        List<CountDownLatch> releases = new ArrayList<>();
        AtomicInteger slots = new AtomicInteger();
        AtomicIntegerArray startOrder = new AtomicIntegerArray(tasks);
        AtomicInteger startedCount = new AtomicInteger();
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("shrink").maxConcurrentCalls(4).build();
        Bulkhead bulkhead = executor.getBulkhead();
        for (int i = 0; i < tasks; i++) {
            CountDownLatch release = new CountDownLatch(1);
            releases.add(release);
            int id = i;
            executor.execute(() -> {
                probe.enter();
                try {
                    startOrder.set(slots.getAndIncrement(), id);
                    startedCount.incrementAndGet();
                    awaitUninterruptibly(release);
                }
                finally {
                    probe.exit();
                }
            });
        }
        eventually().until(() -> probe.current() == 4);
        // No running task can finish before the change returns: a blocking change would never return.
        callers.call(() -> {
            bulkhead.changeLimit(1);
            return null;
        }).result().get(30, TimeUnit.SECONDS);
        assertThat(bulkhead.getLimit()).isEqualTo(1);
        assertThat(bulkhead.getActiveCount()).as("running tasks are not preempted").isEqualTo(4);
        assertThat(bulkhead.getAvailablePermits()).isZero();
        assertThat(bulkhead.getWaitingCount()).isEqualTo(tasks - 4);

        probe.resetMax();
        for (int i = 0; i < 3; i++) {
            releases.get(i).countDown();
        }
        eventually().until(() -> bulkhead.getActiveCount() == 1);
        assertThat(startedCount).as("no task starts while more than the new limit run").hasValue(4);
        releases.get(3).countDown();
        for (int started = 5; started <= tasks; started++) {
            int expected = started;
            eventually().until(() -> startedCount.get() == expected);
            assertThat(probe.current()).isEqualTo(1);
            assertThat(bulkhead.getActiveCount()).isEqualTo(1);
            releases.get(startOrder.get(started - 1)).countDown();
        }
        executor.shutdown();
        assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(probe.max()).as("most running at once after shrinking to 1").isEqualTo(4);
        // The first four got free permits and started side by side; the rest started one by one, in order.
        int[] order = IntStream.range(0, tasks).map(startOrder::get).toArray();
        assertThat(Arrays.copyOfRange(order, 0, 4)).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(Arrays.copyOfRange(order, 4, tasks)).containsExactly(4, 5, 6, 7, 8, 9, 10, 11);
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void afterShrinkingUnderLoadConcurrencyStaysWithinTheNewLimit(Submitters submitters) throws Exception {
        ConcurrencyProbe probe = new ConcurrencyProbe();
        AtomicInteger ran = new AtomicInteger();
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("shrink-load").maxConcurrentCalls(8).build();
        Bulkhead bulkhead = executor.getBulkhead();
        Runnable task = () -> {
            probe.enter();
            try {
                BoundedVirtualExecutorStressTest.pause(Duration.ofMillis(1).toNanos());
                ran.incrementAndGet();
            }
            finally {
                probe.exit();
            }
        };
        try (executor) {
            submitters.runConcurrently(2, (submitter) -> {
                for (int i = 0; i < 200; i++) {
                    executor.execute(task);
                }
            });
            eventually().until(() -> probe.max() == 8);
            bulkhead.changeLimit(3);
            eventually().until(() -> bulkhead.getActiveCount() <= 3);
            probe.resetMax();
            submitters.runConcurrently(2, (submitter) -> {
                for (int i = 0; i < 200; i++) {
                    executor.execute(task);
                }
            });
        }
        assertThat(ran).hasValue(800);
        assertThat(probe.max()).isEqualTo(3);
    }
}
