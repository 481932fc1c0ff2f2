package io.github.loombulkhead;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.github.loombulkhead.Awaits.eventually;
import static io.github.loombulkhead.BoundedVirtualExecutorStressTest.awaitUninterruptibly;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Bounds: a full queue rejects at once, a task that waited too long is rejected; each rejection
 * names the bulkhead and the reason, is counted, reaches listeners, and is never silent.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class BoundedVirtualExecutorRejectionTest {

    /** Timing noise allowance on a busy 2-core machine; the bounds themselves are exact. */
    private static final Duration TOLERANCE = Duration.ofSeconds(5);

    private static final Duration MAX_WAIT = Duration.ofMillis(200);

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void fullQueueRejectsSubmitAndExecuteAtOnce(Submitters submitters) throws Exception {
        RecordingListener listener = new RecordingListener();
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("full")
            .maxConcurrentCalls(1)
            .queueCapacity(2)
            .maxWaitDuration(Duration.ofMinutes(1))
            .build();
        executor.getBulkhead().addListener(listener);
        try (executor) {
            executor.execute(() -> awaitUninterruptibly(gate));
            executor.execute(ran::incrementAndGet);
            executor.submit(ran::incrementAndGet);
            var attempt = submitters.call(() -> {
                long start = System.nanoTime();
                BulkheadRejectedException onSubmit = catchThrowableOfType(BulkheadRejectedException.class,
                        () -> executor.submit(ran::incrementAndGet));
                BulkheadRejectedException onExecute = catchThrowableOfType(BulkheadRejectedException.class,
                        () -> executor.execute(ran::incrementAndGet));
                return new Rejections(List.of(onSubmit, onExecute), Duration.ofNanos(System.nanoTime() - start));
            }).result().get(30, TimeUnit.SECONDS);
            assertThat(attempt.elapsed()).isLessThan(TOLERANCE);
            assertThat(attempt.rejections()).hasSize(2).allSatisfy((rejection) -> {
                assertThat(rejection).isInstanceOf(java.util.concurrent.RejectedExecutionException.class);
                assertThat(rejection.getBulkheadName()).isEqualTo("full");
                assertThat(rejection.getReason()).isEqualTo(RejectionReason.QUEUE_FULL);
                assertThat(rejection).hasMessageContaining("'full'").hasMessageContaining("queue-full");
            });
            Bulkhead bulkhead = executor.getBulkhead();
            assertThat(bulkhead.getRejectedCount(RejectionReason.QUEUE_FULL)).isEqualTo(2);
            assertThat(bulkhead.getRejectedCount()).isEqualTo(2);
            assertThat(listener.rejected(RejectionReason.QUEUE_FULL)).isEqualTo(2);
            assertThat(bulkhead.getWaitingCount()).isEqualTo(2);
            gate.countDown();
        }
        assertThat(ran).hasValue(2);
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void noQueueOrNoWaitRejectsAsSoonAsAllPermitsAreTaken(Submitters submitters) throws Exception {
        for (BulkheadConfig config : List.of(
                BulkheadConfig.custom().maxConcurrentCalls(2).queueCapacity(0).build(),
                BulkheadConfig.custom().maxConcurrentCalls(2).maxWaitDuration(Duration.ZERO).build())) {
            CountDownLatch gate = new CountDownLatch(1);
            try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("no-wait").config(config).build()) {
                executor.execute(() -> awaitUninterruptibly(gate));
                executor.execute(() -> awaitUninterruptibly(gate));
                var third = submitters.call(() -> executor.submit(() -> "never"));
                assertThat(third.result()).failsWithin(Duration.ofSeconds(30))
                    .withThrowableOfType(ExecutionException.class)
                    .havingCause()
                    .isInstanceOfSatisfying(BulkheadRejectedException.class,
                            (rejection) -> assertThat(rejection.getReason()).isEqualTo(RejectionReason.QUEUE_FULL));
                assertThat(executor.getBulkhead().getWaitingCount()).isZero();
                gate.countDown();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void taskThatWaitedTooLongFailsItsFutureWithinTheBound(Submitters submitters) throws Exception {
        RecordingListener listener = new RecordingListener();
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("slow-start")
            .maxConcurrentCalls(1)
            .maxWaitDuration(MAX_WAIT)
            .build();
        executor.getBulkhead().addListener(listener);
        try (executor) {
            executor.execute(() -> awaitUninterruptibly(gate));
            eventually().until(() -> executor.getBulkhead().getActiveCount() == 1);
            var waited = submitters.call(() -> {
                List<Long> starts = new ArrayList<>();
                List<Future<Integer>> futures = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    starts.add(System.nanoTime());
                    futures.add(executor.submit(ran::incrementAndGet));
                }
                List<Duration> elapsed = new ArrayList<>();
                for (int i = 0; i < futures.size(); i++) {
                    Future<Integer> future = futures.get(i);
                    ExecutionException failure = catchThrowableOfType(ExecutionException.class,
                            () -> future.get(30, TimeUnit.SECONDS));
                    elapsed.add(Duration.ofNanos(System.nanoTime() - starts.get(i)));
                    assertThat(failure).as("future %d", i).isNotNull();
                    assertThat(failure.getCause()).isInstanceOfSatisfying(BulkheadRejectedException.class, (rejection) -> {
                        assertThat(rejection.getBulkheadName()).isEqualTo("slow-start");
                        assertThat(rejection.getReason()).isEqualTo(RejectionReason.WAIT_TIMED_OUT);
                        assertThat(rejection).hasMessageContaining("'slow-start'").hasMessageContaining("wait-timed-out");
                    });
                }
                return elapsed;
            }).result().get(30, TimeUnit.SECONDS);
            assertThat(waited).hasSize(3)
                .allSatisfy((elapsed) -> assertThat(elapsed).isGreaterThanOrEqualTo(MAX_WAIT)
                    .isLessThan(MAX_WAIT.plus(TOLERANCE)));
            Bulkhead bulkhead = executor.getBulkhead();
            assertThat(bulkhead.getRejectedCount(RejectionReason.WAIT_TIMED_OUT)).isEqualTo(3);
            assertThat(bulkhead.getWaitingCount()).isZero();
            assertThat(listener.events).filteredOn((event) -> event.type().equals("rejected"))
                .hasSize(3)
                .allSatisfy((event) -> {
                    assertThat(event.bulkhead()).isEqualTo("slow-start");
                    assertThat(event.reason()).isEqualTo(RejectionReason.WAIT_TIMED_OUT);
                    assertThat(Duration.ofNanos(event.nanos())).isGreaterThanOrEqualTo(MAX_WAIT);
                });
            gate.countDown();
        }
        assertThat(ran).as("rejected tasks never run").hasValue(0);
        assertThat(executor.getBulkhead().getPermittedCount()).isEqualTo(1);
    }

    @Test
    void aFallbackThatBlocksOnOneTimedOutFutureDelaysNoOtherTimeout() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch fallbackEntered = new CountDownLatch(1);
        CountDownLatch fallbackMayReturn = new CountDownLatch(1);
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("slow-fallback")
            .maxConcurrentCalls(1)
            .maxWaitDuration(Duration.ofHours(1))
            .build();
        // Closing waits for the running task: the latches open before it, also when an assertion fails.
        try (executor) {
            try {
                executor.execute(() -> awaitUninterruptibly(gate));
                CompletableFuture<String> first = executor.supplyAsync(() -> "first").exceptionally((ex) -> {
                    fallbackEntered.countDown();
                    awaitUninterruptibly(fallbackMayReturn);
                    return "fallback";
                });
                CompletableFuture<String> second = executor.supplyAsync(() -> "second");
                assertThat(executor.getBulkhead().getWaitingCount()).isEqualTo(2);
                // Both are past their max wait now (each waited more than a nanosecond by the time the check runs):
                // one expiry check finds both, as it finds a burst's tasks.
                executor.getBulkhead().changeMaxWaitDuration(Duration.ofNanos(1));
                assertThat(fallbackEntered.await(30, TimeUnit.SECONDS)).isTrue();
                assertThat(second).as("timed out while the first one's fallback still runs")
                    .failsWithin(TOLERANCE)
                    .withThrowableOfType(ExecutionException.class)
                    .havingCause()
                    .isInstanceOfSatisfying(BulkheadRejectedException.class,
                            (ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.WAIT_TIMED_OUT));
                assertThat(first).isNotDone();
                fallbackMayReturn.countDown();
                assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("fallback");
                assertThat(executor.getBulkhead().getRejectedCount(RejectionReason.WAIT_TIMED_OUT)).isEqualTo(2);
            }
            finally {
                fallbackMayReturn.countDown();
                gate.countDown();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void anExecutedTaskIsNeverTimedOutOnceAcceptedAndRunsWhenAPermitIsFree(Submitters submitters) throws Exception {
        RecordingListener listener = new RecordingListener();
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        try (LogCapture log = new LogCapture(BoundedVirtualExecutor.class)) {
            BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("uploads")
                .maxConcurrentCalls(1)
                .maxWaitDuration(MAX_WAIT)
                .build();
            executor.getBulkhead().addListener(listener);
            try (executor) {
                executor.execute(() -> awaitUninterruptibly(gate));
                submitters.call(() -> {
                    executor.execute(ran::incrementAndGet);
                    return null;
                }).result().get(30, TimeUnit.SECONDS);
                // Nobody could be told of a rejection, so it waits past the max wait instead of being dropped.
                eventually().during(MAX_WAIT.multipliedBy(3))
                    .until(() -> executor.getBulkhead().getWaitingCount() == 1 && ran.get() == 0);
                gate.countDown();
            }
            assertThat(log.records()).isEmpty();
        }
        assertThat(ran).hasValue(1);
        assertThat(listener.rejected(RejectionReason.WAIT_TIMED_OUT)).isZero();
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void listenersSeeWaitAndRunTimesOfEachTask(Submitters submitters) throws Exception {
        RecordingListener listener = new RecordingListener();
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("timed").maxConcurrentCalls(1).build()) {
            executor.getBulkhead().addListener(listener);
            executor.execute(() -> {
                running.countDown();
                awaitUninterruptibly(gate);
                BoundedVirtualExecutorStressTest.pause(Duration.ofMillis(50).toNanos());
            });
            var queued = submitters.call(() -> executor.submit(() -> "queued"));
            eventually().until(() -> executor.getBulkhead().getWaitingCount() == 1);
            // The first task's run time counts from when its thread runs, so the pause starts after that.
            running.await();
            BoundedVirtualExecutorStressTest.pause(Duration.ofMillis(50).toNanos());
            gate.countDown();
            assertThat(queued.result().get(30, TimeUnit.SECONDS).get(30, TimeUnit.SECONDS)).isEqualTo("queued");
        }
        List<RecordingListener.Event> permits = listener.events.stream()
            .filter((event) -> event.type().equals("permitted"))
            .toList();
        List<RecordingListener.Event> completions = listener.events.stream()
            .filter((event) -> event.type().equals("completed"))
            .toList();
        assertThat(permits).hasSize(2);
        assertThat(permits.get(0).nanos()).as("wait of the task that found a free permit").isZero();
        assertThat(Duration.ofNanos(permits.get(1).nanos())).as("wait of the queued task")
            .isGreaterThanOrEqualTo(Duration.ofMillis(100));
        // The first task gives its permit back before it reports completion, so the events may come in either order.
        assertThat(completions).hasSize(2)
            .extracting((event) -> Duration.ofNanos(event.nanos()))
            .anySatisfy((runTime) -> assertThat(runTime).as("run time of the first task")
                .isGreaterThanOrEqualTo(Duration.ofMillis(100)));
        assertThat(listener.permitted.sum()).isEqualTo(2);
        assertThat(listener.completed.sum()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void taskExceptionsReleaseThePermit(Submitters submitters) throws Exception {
        AtomicInteger uncaught = new AtomicInteger();
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("failing")
            .maxConcurrentCalls(2)
            .threadFactory(Thread.ofVirtual().uncaughtExceptionHandler((thread, ex) -> uncaught.incrementAndGet()).factory())
            .build();
        Queue<Future<Object>> futures = new ConcurrentLinkedQueue<>();
        try (executor) {
            submitters.runConcurrently(2, (submitter) -> {
                for (int i = 0; i < 50; i++) {
                    executor.execute(() -> {
                        throw new IllegalStateException("runnable failed");
                    });
                    Future<Object> future = executor.submit(() -> {
                        throw new IllegalArgumentException("callable failed");
                    });
                    futures.add(future);
                }
            });
        }
        // The handler runs as the failed thread unwinds, just after the executor saw the task end.
        eventually().until(() -> uncaught.get() == 100);
        assertThat(futures).hasSize(100).allSatisfy((future) -> assertThatExceptionOfType(ExecutionException.class)
            .isThrownBy(future::get)
            .withCauseInstanceOf(IllegalArgumentException.class));
        Bulkhead bulkhead = executor.getBulkhead();
        assertThat(bulkhead.getActiveCount()).isZero();
        assertThat(bulkhead.getCompletedCount()).isEqualTo(200);
        assertThat(bulkhead.getAvailablePermits()).isEqualTo(2);
    }

    private record Rejections(List<BulkheadRejectedException> rejections, Duration elapsed) {
    }
}
