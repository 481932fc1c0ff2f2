package io.github.loombulkhead;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.github.loombulkhead.Awaits.eventually;
import static io.github.loombulkhead.BoundedVirtualExecutorStressTest.awaitUninterruptibly;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Every future a caller can hold completes: the executor's own futures with a rejection after the
 * max wait, wrapped foreign tasks by running once a permit is free; a cancelled waiting task frees
 * its queue slot and never gets a thread.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class RejectionReachesCallerTest {

    private static final Duration MAX_WAIT = Duration.ofMillis(150);

    /** Timing noise allowance on a busy 2-core machine, beyond the max wait. */
    private static final Duration TOLERANCE = Duration.ofSeconds(5);

    private final CountDownLatch gate = new CountDownLatch(1);

    private final CountingVirtualThreadFactory threads = new CountingVirtualThreadFactory("reach-");

    private final BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("reach")
        .maxConcurrentCalls(1)
        .maxWaitDuration(MAX_WAIT)
        .threadFactory(this.threads)
        .build();

    @AfterEach
    void release() {
        this.gate.countDown();
        this.executor.close();
    }

    private void occupyTheOnlyPermit() {
        this.executor.execute(() -> awaitUninterruptibly(this.gate));
        eventually().until(() -> this.executor.getBulkhead().getActiveCount() == 1);
    }

    @Test
    void supplyAsyncCompletesWithTheRejectionAfterTheMaxWait() {
        occupyTheOnlyPermit();
        long start = System.nanoTime();
        CompletableFuture<String> future = this.executor.supplyAsync(() -> "ran");

        Throwable failure = catchThrowableOfType(ExecutionException.class, () -> future.get(30, TimeUnit.SECONDS))
            .getCause();

        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(failure).isInstanceOfSatisfying(BulkheadRejectedException.class,
                (rejection) -> assertThat(rejection.getReason()).isEqualTo(RejectionReason.WAIT_TIMED_OUT));
        assertThat(waited).isGreaterThanOrEqualTo(MAX_WAIT).isLessThan(MAX_WAIT.plus(TOLERANCE));
        assertThat(this.executor.getBulkhead().getWaitingCount()).isZero();
    }

    @Test
    void completableFutureRunAsyncOfTheExecutorIsNeverTimedOutAndCompletesOnceItRuns() throws Exception {
        occupyTheOnlyPermit();
        AtomicInteger ran = new AtomicInteger();
        CompletableFuture<Void> future = CompletableFuture.runAsync(ran::incrementAndGet, this.executor);

        // Three max waits: before, this task was logged as rejected and the future never completed.
        eventually().during(MAX_WAIT.multipliedBy(3))
            .until(() -> this.executor.getBulkhead().getWaitingCount() == 1
                    && this.executor.getBulkhead().getRejectedCount() == 0 && !future.isDone());
        this.gate.countDown();

        CompletableFuture.allOf(future).get(30, TimeUnit.SECONDS);
        eventually().until(() -> ran.get() == 1);
    }

    @Test
    void completionServiceYieldsATaskThatWaitedLongerThanTheMaxWait() throws Exception {
        occupyTheOnlyPermit();
        ExecutorCompletionService<String> completions = new ExecutorCompletionService<>(this.executor);
        Future<String> submitted = completions.submit(() -> "ran");

        assertThat(completions.poll(3 * MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS)).isNull();
        this.gate.countDown();

        Future<String> next = completions.poll(30, TimeUnit.SECONDS);
        assertThat(next).isSameAs(submitted);
        assertThat(next.get()).isEqualTo("ran");
        assertThat(this.executor.getBulkhead().getRejectedCount()).isZero();
    }

    @Test
    void untimedInvokeAnyOfRejectedTasksFailsWithTheRejection() {
        occupyTheOnlyPermit();
        List<Callable<String>> tasks = List.of(() -> "a", () -> "b", () -> "c");
        long start = System.nanoTime();

        ExecutionException failure = catchThrowableOfType(ExecutionException.class,
                () -> this.executor.invokeAny(tasks));

        assertThat(failure.getCause()).isInstanceOf(BulkheadRejectedException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(MAX_WAIT.plus(TOLERANCE));
        assertThat(this.executor.getBulkhead().getRejectedCount(RejectionReason.WAIT_TIMED_OUT)).isEqualTo(3);
    }

    @Test
    void timedInvokeAnyOfRejectedTasksFailsWithExecutionExceptionNotTimeout() {
        occupyTheOnlyPermit();
        List<Callable<String>> tasks = List.of(() -> "a", () -> "b");

        ExecutionException failure = catchThrowableOfType(ExecutionException.class,
                () -> this.executor.invokeAny(tasks, 30, TimeUnit.SECONDS));

        assertThat(failure.getCause()).isInstanceOf(BulkheadRejectedException.class);
    }

    @Test
    void invokeAnyAfterShutdownIsRejectedAsExecutorServiceSays() {
        this.executor.shutdown();
        List<Callable<String>> tasks = List.of(() -> "a", () -> "b");

        assertThatExceptionOfType(RejectedExecutionException.class).isThrownBy(() -> this.executor.invokeAny(tasks))
            .isInstanceOfSatisfying(BulkheadRejectedException.class,
                    (ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.SHUT_DOWN));
        assertThatExceptionOfType(RejectedExecutionException.class)
            .isThrownBy(() -> this.executor.invokeAny(tasks, 30, TimeUnit.SECONDS));
    }

    @Test
    void invokeAnyWhoseEveryTaskIsRefusedAtOnceIsRejected() {
        BoundedVirtualExecutor full = BoundedVirtualExecutor.builder("reach-full")
            .maxConcurrentCalls(1)
            .queueCapacity(0)
            .build();
        CountDownLatch held = new CountDownLatch(1);
        try {
            full.execute(() -> awaitUninterruptibly(held));
            eventually().until(() -> full.getBulkhead().getActiveCount() == 1);

            assertThatExceptionOfType(RejectedExecutionException.class)
                .isThrownBy(() -> full.invokeAny(List.of(() -> "a", () -> "b")))
                .isInstanceOfSatisfying(BulkheadRejectedException.class,
                        (ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.QUEUE_FULL));
        }
        finally {
            held.countDown();
            full.close();
        }
    }

    @Test
    void invokeAnyReturnsTheFirstResultAndCancelsTheRest() throws Exception {
        this.gate.countDown();
        String result = this.executor.invokeAny(List.of(() -> {
            throw new IllegalStateException("first fails");
        }, () -> "second"));
        assertThat(result).isEqualTo("second");
        eventually().until(() -> this.executor.getBulkhead().getActiveCount() == 0);
    }

    @Test
    void invokeAllFuturesOfRejectedTasksCompleteExceptionally() throws Exception {
        occupyTheOnlyPermit();
        List<Future<String>> futures = this.executor.invokeAll(List.of(() -> "a", () -> "b"));
        assertThat(futures).allSatisfy((future) -> assertThat(catchThrowableOfType(ExecutionException.class,
                future::get).getCause()).isInstanceOf(BulkheadRejectedException.class));
    }

    @Test
    void cancellingAWaitingSupplyAsyncFreesItsSlotAndStartsNoThread() {
        occupyTheOnlyPermit();
        int threadsBefore = this.threads.created();
        CompletableFuture<String> future = this.executor.supplyAsync(() -> "ran");
        assertThat(this.executor.getBulkhead().getWaitingCount()).isEqualTo(1);

        assertThat(future.cancel(true)).isTrue();

        assertThat(this.executor.getBulkhead().getWaitingCount()).isZero();
        this.gate.countDown();
        eventually().until(() -> this.executor.getBulkhead().getActiveCount() == 0);
        assertThat(this.threads.created()).isEqualTo(threadsBefore);
        assertThat(this.executor.getBulkhead().getPermittedCount()).isEqualTo(1);
    }

    @Test
    void aSubmittedTaskIsCountedBeforeItsFutureCompletes() throws Exception {
        this.gate.countDown();
        BoundedVirtualExecutor burst = BoundedVirtualExecutor.builder("burst").maxConcurrentCalls(5).build();
        try (burst) {
            for (int round = 1; round <= 20; round++) {
                List<Future<Integer>> futures = new java.util.ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    futures.add(burst.submit(() -> 1));
                }
                for (Future<Integer> future : futures) {
                    future.get(30, TimeUnit.SECONDS);
                }
                assertThat(burst.getBulkhead().getCompletedCount()).isEqualTo(50L * round);
            }
        }
    }

    @Test
    void supplyAsyncCountsTheTaskAndFreesItsPermitBeforeTheFutureCompletes() throws Exception {
        this.gate.countDown();
        for (int i = 1; i <= 200; i++) {
            int expected = i;
            long completed = this.executor.supplyAsync(() -> expected)
                .thenApply((ignored) -> this.executor.getBulkhead().getCompletedCount())
                .get(30, TimeUnit.SECONDS);
            assertThat(completed).isEqualTo(expected);
        }
    }
}
