package io.github.loombulkhead;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import com.sun.management.HotSpotDiagnosticMXBean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.github.loombulkhead.Awaits.eventually;
import static io.github.loombulkhead.BoundedVirtualExecutorStressTest.awaitUninterruptibly;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task waiting in a {@link BoundedVirtualExecutor} owns no thread and costs little heap, compared
 * in the same JVM with the usual alternative: one virtual thread per task parked on a
 * {@link Semaphore}. Both sides wait with {@value #TASKS} distinct tasks; heap is read after full GCs.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class WaitingTaskMemoryTest {

    private static final int TASKS = 100_000;

    /** The target for one waiting task, including its future and queue slot. */
    private static final double MAX_BYTES_PER_QUEUED_TASK = 150;

    private static final LongAdder SINK = new LongAdder();

    @Test
    void queuedTaskCostsLittleHeapAndFarLessThanAParkedVirtualThread() throws Exception {
        Measurement queuedTasks = queuedTasks();
        Measurement parkedThreads = parkedVirtualThreads();
        double queued = queuedTasks.bytesPerTask();
        double parked = parkedThreads.bytesPerTask();
        System.out.printf("heap per waiting task: %.0f B queued in BoundedVirtualExecutor (submit), "
                + "%.0f B as a virtual thread parked on a Semaphore (%d tasks, ratio %.1fx)%n", queued, parked, TASKS,
                parked / queued);
        System.out.printf("time to make %d tasks wait: %d ms queued, %d ms as parked virtual threads%n", TASKS,
                queuedTasks.elapsed().toMillis(), parkedThreads.elapsed().toMillis());
        assertThat(parked).as("a parked virtual thread costs measurable heap (sanity check of the measurement)")
            .isGreaterThan(400);
        assertThat(queued).as("bytes per queued task").isPositive();
        if (compressedOops()) {
            // The target assumes 4-byte references, the default for heaps below 32 GB.
            assertThat(queued).as("bytes per queued task").isLessThanOrEqualTo(MAX_BYTES_PER_QUEUED_TASK);
        }
        assertThat(parked / queued).as("parked thread cost / queued task cost").isGreaterThan(4);
        assertThat(queuedTasks.elapsed()).as("queueing a task is cheaper than starting a thread that parks")
            .isLessThan(parkedThreads.elapsed());
    }

    /** Queues {@code TASKS} submitted tasks behind one running task and measures what they added to the heap. */
    private static Measurement queuedTasks() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("memory")
            .maxConcurrentCalls(1)
            .queueCapacity(TASKS)
            .maxWaitDuration(Duration.ofMinutes(10))
            .build();
        executor.execute(() -> awaitUninterruptibly(gate));
        // Warm the submit path so class loading and code caches are not counted.
        Future<?> warm = executor.submit(() -> SINK.add(-1));
        warm.cancel(false);
        eventually().until(() -> executor.getBulkhead().getActiveCount() == 1);
        long before = usedHeapAfterGc();
        long start = System.nanoTime();
        for (int i = 0; i < TASKS; i++) {
            int id = i;
            executor.submit(() -> SINK.add(id));
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        assertThat(executor.getBulkhead().getWaitingCount()).isEqualTo(TASKS);
        long after = usedHeapAfterGc();
        List<Runnable> neverStarted = executor.shutdownNow();
        assertThat(neverStarted).hasSize(TASKS);
        gate.countDown();
        assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        return new Measurement((after - before) / (double) TASKS, elapsed);
    }

    /** Parks {@code TASKS} virtual threads on a semaphore and measures what they added to the heap. */
    private static Measurement parkedVirtualThreads() throws Exception {
        Semaphore permits = new Semaphore(0, true);
        CountDownLatch done = new CountDownLatch(TASKS);
        Thread.ofVirtual().start(() -> {
        }).join();
        long before = usedHeapAfterGc();
        long start = System.nanoTime();
        for (int i = 0; i < TASKS; i++) {
            int id = i;
            Thread.ofVirtual().start(() -> {
                permits.acquireUninterruptibly();
                try {
                    SINK.add(id);
                }
                finally {
                    permits.release();
                    done.countDown();
                }
            });
        }
        eventually().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(20))
            .until(() -> permits.getQueueLength() == TASKS);
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        long after = usedHeapAfterGc();
        permits.release();
        assertThat(done.await(1, TimeUnit.MINUTES)).isTrue();
        return new Measurement((after - before) / (double) TASKS, elapsed);
    }

    private record Measurement(double bytesPerTask, Duration elapsed) {
    }

    private static boolean compressedOops() {
        HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        return hotSpot == null || Boolean.parseBoolean(hotSpot.getVMOption("UseCompressedOops").getValue());
    }

    /** Heap in use after full collections, once it has stopped shrinking. */
    private static long usedHeapAfterGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            System.gc();
            // Lets time pass on purpose: concurrent collector work settles before the heap is read.
            Thread.sleep(20);
            long now = memory.getHeapMemoryUsage().getUsed();
            if (i >= 2 && now >= used - 1024) {
                return Math.min(used, now);
            }
            used = Math.min(used, now);
        }
        return used;
    }
}
