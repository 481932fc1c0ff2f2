package io.github.loombulkhead;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.github.loombulkhead.Awaits.eventually;
import static io.github.loombulkhead.BoundedVirtualExecutorStressTest.awaitUninterruptibly;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code supplyAsync} future that its caller completes while its task waits ({@code orTimeout}, {@code complete},
 * a {@code CancellationException}, which {@code CompletableFuture} reports as cancelled) leaves the queue at once, as
 * a cancelled one does: its task will never run, and its slot is free for the next.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class SupplyAsyncCompletedWhileQueuedTest {

    @Test
    void aFutureThatTimedOutWhileQueuedFreesItsQueueSlot() {
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("or-timeout-queued")
            .maxConcurrentCalls(1)
            .queueCapacity(1)
            .build();
        try {
            executor.execute(() -> awaitUninterruptibly(gate));
            CompletableFuture<Integer> first = executor.supplyAsync(ran::incrementAndGet)
                .orTimeout(50, TimeUnit.MILLISECONDS);
            eventually().until(first::isDone);
            assertThat(executor.getBulkhead().getWaitingCount()).as("waiting after the future timed out").isZero();

            CompletableFuture<Integer> second = executor.supplyAsync(() -> 2);
            assertThat(second).as("the next task waits in the slot the first gave up").isNotDone();
            gate.countDown();
            assertThat(second.join()).isEqualTo(2);
        }
        finally {
            // Before closing, which waits for the tasks.
            gate.countDown();
            executor.close();
        }
        assertThat(ran).as("the task of the future that timed out").hasValue(0);
    }

    @Test
    void aFutureCompletedWithACancellationWhileQueuedLeavesTheQueueAndTheExecutorCanTerminate() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("cancelled-queued").maxConcurrentCalls(1).build();
        try {
            executor.execute(() -> awaitUninterruptibly(gate));
            CompletableFuture<Integer> queued = executor.supplyAsync(ran::incrementAndGet);
            CompletableFuture<Integer> answered = executor.supplyAsync(ran::incrementAndGet);
            assertThat(executor.getBulkhead().getWaitingCount()).isEqualTo(2);

            queued.completeExceptionally(new CancellationException("caller gave up"));
            answered.complete(42);

            assertThat(queued.isCancelled()).isTrue();
            assertThat(answered.join()).isEqualTo(42);
            assertThat(executor.getBulkhead().getWaitingCount()).as("waiting after both were completed").isZero();
        }
        finally {
            gate.countDown();
            executor.shutdown();
        }
        assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).hasValue(0);
        assertThat(executor.getBulkhead().getPermittedCount()).as("only the first task took a permit").isEqualTo(1);
    }
}
