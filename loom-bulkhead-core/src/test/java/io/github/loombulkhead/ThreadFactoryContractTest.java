package io.github.loombulkhead;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What the executor does with a thread factory that does not return a new, unstarted thread: a task is never lost
 * with its permit. A thread that already ended without running the task gets the task rejected with a message
 * naming the factory; a thread the factory started with the task runs it once, also when it ended before the
 * factory returned it.
 */
class ThreadFactoryContractTest {

    @Test
    void aThreadThatAlreadyEndedIsRefusedAndThePermitGoesBack() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("ended-threads")
            .maxConcurrentCalls(1)
            .threadFactory(ThreadFactoryContractTest::endedThread)
            .build();
        try {
            assertThatExceptionOfType(RejectedExecutionException.class)
                .isThrownBy(() -> executor.submit(ran::incrementAndGet))
                .withMessageContaining("'ended-threads'")
                .withMessageContaining("the thread factory returned a thread that had already ended");
            assertThat(executor.getBulkhead().getActiveCount()).isZero();
            // The permit went back: the next task gets it, and is refused for the same reason, not for want of one.
            assertThatExceptionOfType(RejectedExecutionException.class)
                .isThrownBy(() -> executor.execute(ran::incrementAndGet))
                .withMessageContaining("the thread factory returned a thread that had already ended");
            assertThat(ran).hasValue(0);
            assertThat(executor.getBulkhead().getActiveCount()).isZero();
            assertThat(executor.getBulkhead().getCompletedCount())
                .isEqualTo(executor.getBulkhead().getPermittedCount())
                .isEqualTo(2);
            // No task is left counted as running.
            executor.shutdown();
            assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        finally {
            executor.shutdownNow();
        }
    }

    @Test
    void aWaitingTaskHandedAnEndedThreadFailsItsFuture() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger threads = new AtomicInteger();
        ThreadFactory endedAfterFirst = (task) -> (threads.incrementAndGet() == 1) ? Thread.ofVirtual().unstarted(task)
                : endedThread(task);
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("ended-on-hand-off")
            .maxConcurrentCalls(1)
            .queueCapacity(1)
            .threadFactory(endedAfterFirst)
            .build();
        try {
            Future<?> first = executor.submit(() -> {
                gate.await();
                return null;
            });
            Future<?> waiting = executor.submit(() -> "never");
            assertThat(executor.getBulkhead().getWaitingCount()).isEqualTo(1);
            gate.countDown();
            first.get(10, TimeUnit.SECONDS);
            assertThat(catchThrowableOfType(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS))
                .getCause()).isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("the thread factory returned a thread that had already ended");
            assertThat(executor.getBulkhead().getActiveCount()).isZero();
            assertThat(executor.getBulkhead().getWaitingCount()).isZero();
            executor.shutdown();
            assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        finally {
            executor.shutdownNow();
        }
    }

    @Test
    void aThreadTheFactoryStartedWithTheTaskRunsItOnceEvenIfItEndedAlready() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        ThreadFactory startsAndJoins = (task) -> ended(Thread.ofVirtual().start(task));
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("started-by-factory")
            .maxConcurrentCalls(1)
            .threadFactory(startsAndJoins)
            .build();
        try {
            Future<Integer> future = executor.submit(ran::incrementAndGet);
            assertThat(future.get(10, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(ran).hasValue(1);
            assertThat(executor.getBulkhead().getActiveCount()).isZero();
            assertThat(executor.getBulkhead().getCompletedCount()).isEqualTo(1);
            assertThat(executor.getBulkhead().getPermittedCount()).isEqualTo(1);
            executor.shutdown();
            assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        finally {
            executor.shutdownNow();
        }
    }

    /** A thread that ran something else to its end: what a factory that reuses threads would return. */
    private static Thread endedThread(Runnable ignored) {
        return ended(Thread.ofVirtual().start(() -> {
        }));
    }

    /** {@code thread} once it ended. */
    private static Thread ended(Thread thread) {
        try {
            thread.join();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        return thread;
    }
}
