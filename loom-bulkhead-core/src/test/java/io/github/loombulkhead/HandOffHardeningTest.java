package io.github.loombulkhead;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.github.loombulkhead.Awaits.eventually;
import static io.github.loombulkhead.BoundedVirtualExecutorStressTest.awaitUninterruptibly;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The hand-off and expiry paths: callbacks never run on the shared timer thread, a failing thread
 * start never recurses or leaks, the low-level API cannot corrupt a bulkhead, and a listener that
 * throws an {@code Error} costs no permit.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HandOffHardeningTest {

    /** Timing noise allowance on a busy 2-core machine, beyond the max wait. */
    private static final Duration TOLERANCE = Duration.ofSeconds(5);

    @Test
    void aBlockingCallbackOnOneBulkheadDoesNotDelayAnotherBulkheadsTimeout() throws Exception {
        CountDownLatch slowCallback = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        BoundedVirtualExecutor slow = executor("slow", Duration.ofMillis(50));
        BoundedVirtualExecutor fast = executor("fast", Duration.ofMillis(100));
        try (slow; fast) {
            slow.execute(() -> awaitUninterruptibly(gate));
            fast.execute(() -> awaitUninterruptibly(gate));
            eventually().until(() -> slow.getBulkhead().getActiveCount() == 1 && fast.getBulkhead().getActiveCount() == 1);
            AtomicReference<String> callbackThread = new AtomicReference<>();
            CompletableFuture<String> blocked = slow.supplyAsync(() -> "never").exceptionally((ex) -> {
                callbackThread.set(Thread.currentThread().getName());
                awaitUninterruptibly(slowCallback);
                return "recovered";
            });
            eventually().until(() -> callbackThread.get() != null);

            long start = System.nanoTime();
            CompletableFuture<String> timedOut = fast.supplyAsync(() -> "never");
            Throwable failure = catchThrowableOfType(ExecutionException.class, () -> timedOut.get(30, TimeUnit.SECONDS));

            assertThat(failure.getCause()).isInstanceOf(BulkheadRejectedException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(100).plus(TOLERANCE));
            assertThat(callbackThread.get()).isNotEqualTo("loom-bulkhead-expiry");
            slowCallback.countDown();
            assertThat(blocked.get(30, TimeUnit.SECONDS)).isEqualTo("recovered");
            gate.countDown();
        }
    }

    @Test
    void expiredWaitersAreToldOffTheTimerThread() {
        Bulkhead bulkhead = new Bulkhead("told", BulkheadConfig.custom().maxConcurrentCalls(1)
            .maxWaitDuration(Duration.ofMillis(20)).build());
        bulkhead.acquirePermit();
        AtomicReference<Thread> toldOn = new AtomicReference<>();
        bulkhead.acquireOrEnqueue(new Waiter() {
            @Override
            protected boolean onPermit(long waitNanos) {
                return true;
            }

            @Override
            protected void onReject(BulkheadRejectedException rejection) {
                toldOn.set(Thread.currentThread());
            }
        });
        eventually().until(() -> toldOn.get() != null);
        assertThat(toldOn.get().isVirtual()).isTrue();
        assertThat(toldOn.get().getName()).isNotEqualTo("loom-bulkhead-expiry");
    }

    @Test
    void threadStartsThatFailDuringAHandOffRejectEachTaskWithoutRecursion() throws Exception {
        int queued = 20_000;
        AtomicInteger starts = new AtomicInteger();
        ThreadFactory failsAfterFirst = (task) -> {
            if (starts.incrementAndGet() > 1) {
                throw new IllegalStateException("no more threads");
            }
            return Thread.ofVirtual().unstarted(task);
        };
        CountDownLatch gate = new CountDownLatch(1);
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("failing-starts")
            .maxConcurrentCalls(1)
            .queueCapacity(queued)
            .threadFactory(failsAfterFirst)
            .build();
        Future<?> first = executor.submit(() -> awaitUninterruptibly(gate));
        List<Future<?>> waiting = new ArrayList<>(queued);
        for (int i = 0; i < queued; i++) {
            waiting.add(executor.submit(() -> {
            }));
        }
        assertThat(executor.getBulkhead().getWaitingCount()).isEqualTo(queued);

        gate.countDown();
        first.get(30, TimeUnit.SECONDS);

        for (Future<?> future : waiting) {
            assertThat(catchThrowableOfType(ExecutionException.class, () -> future.get(30, TimeUnit.SECONDS))
                .getCause()).hasMessage("no more threads");
        }
        assertThat(executor.getBulkhead().getActiveCount()).isZero();
        assertThat(executor.getBulkhead().getWaitingCount()).isZero();
        executor.shutdown();
        assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void withdrawIgnoresWaitersOfOtherBulkheads() {
        Bulkhead mine = new Bulkhead("mine", BulkheadConfig.custom().maxConcurrentCalls(1).build());
        Bulkhead other = new Bulkhead("other", BulkheadConfig.custom().maxConcurrentCalls(1).build());
        mine.acquirePermit();
        Recording waiter = new Recording();
        assertThat(mine.acquireOrEnqueue(waiter)).isFalse();

        assertThat(other.withdraw(waiter)).isFalse();

        assertThat(mine.getWaitingCount()).isEqualTo(1);
        mine.onComplete(0);
        assertThat(waiter.permits).hasValue(1);
    }

    @Test
    void aWaiterCanBeOfferedOnlyOnce() {
        Bulkhead bulkhead = new Bulkhead("once", BulkheadConfig.custom().maxConcurrentCalls(1).build());
        bulkhead.acquirePermit();
        Recording waiter = new Recording();
        assertThat(bulkhead.acquireOrEnqueue(waiter)).isFalse();

        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> bulkhead.acquireOrEnqueue(waiter))
            .withMessageContaining("already offered to bulkhead 'once'");

        assertThat(bulkhead.getWaitingCount()).isEqualTo(1);
        bulkhead.onComplete(0);
        assertThat(bulkhead.getWaitingCount()).isZero();
        bulkhead.onComplete(0);
        assertThat(bulkhead.getActiveCount()).isZero();
    }

    @Test
    void withdrawingEveryWaiterIsNotPublicApi() {
        assertThat(Arrays.stream(Bulkhead.class.getMethods()).map(java.lang.reflect.Method::getName))
            .doesNotContain("withdrawAll");
        assertThatExceptionOfType(NoSuchMethodException.class)
            .isThrownBy(() -> Bulkhead.class.getMethod("withdrawAll", Predicate.class));
    }

    @Test
    void aListenerThrowingAnErrorLeaksNoPermitAndTheWaiterIsStillTold() {
        Bulkhead bulkhead = new Bulkhead("erroring", BulkheadConfig.custom().maxConcurrentCalls(1).build());
        bulkhead.addListener(new BulkheadListener() {
            @Override
            public void onPermitted(Bulkhead b, long waitNanos) {
                throw new AssertionError("listener bug");
            }

            @Override
            public void onCompleted(Bulkhead b, long executionNanos) {
                throw new OutOfMemoryError("listener bug");
            }
        });
        bulkhead.acquirePermit();
        Recording waiter = new Recording();
        assertThat(bulkhead.acquireOrEnqueue(waiter)).isFalse();

        bulkhead.onComplete(0);

        assertThat(waiter.permits).hasValue(1);
        assertThat(bulkhead.getActiveCount()).isEqualTo(1);
        bulkhead.onComplete(0);
        assertThat(bulkhead.getActiveCount()).isZero();
        assertThat(bulkhead.tryAcquirePermit()).isTrue();
    }

    @Test
    void aSynchronousWaitTimeoutCarriesTheCallersStackTrace() {
        Bulkhead bulkhead = new Bulkhead("stack", BulkheadConfig.custom().maxConcurrentCalls(1)
            .maxWaitDuration(Duration.ofMillis(30)).build());
        bulkhead.acquirePermit();

        BulkheadRejectedException rejection = catchThrowableOfType(BulkheadRejectedException.class,
                bulkhead::acquirePermit);

        assertThat(rejection.getReason()).isEqualTo(RejectionReason.WAIT_TIMED_OUT);
        assertThat(rejection.getStackTrace()).anySatisfy((frame) -> assertThat(frame.getMethodName())
            .isEqualTo("aSynchronousWaitTimeoutCarriesTheCallersStackTrace"));
    }

    @Test
    void everyTaskRacingShutdownNowRunsIsRefusedOrIsReturned() throws Exception {
        for (int trial = 0; trial < 200; trial++) {
            CountDownLatch gate = new CountDownLatch(1);
            AtomicInteger ran = new AtomicInteger();
            AtomicInteger ranWithoutInterrupt = new AtomicInteger();
            AtomicReference<Boolean> stopped = new AtomicReference<>(false);
            BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("race").maxConcurrentCalls(1).build();
            executor.execute(() -> awaitUninterruptibly(gate));
            AtomicInteger refused = new AtomicInteger();
            int submitted = 20;
            CountDownLatch submitting = new CountDownLatch(1);
            Thread submitter = Thread.ofVirtual().start(() -> {
                submitting.countDown();
                for (int i = 0; i < submitted; i++) {
                    try {
                        executor.execute(() -> {
                            ran.incrementAndGet();
                            if (stopped.get() && !Thread.currentThread().isInterrupted()) {
                                ranWithoutInterrupt.incrementAndGet();
                            }
                        });
                    }
                    catch (BulkheadRejectedException ex) {
                        refused.incrementAndGet();
                    }
                }
            });
            submitting.await();
            List<Runnable> returned = executor.shutdownNow();
            stopped.set(true);
            submitter.join();
            gate.countDown();
            assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).as("trial %d", trial).isTrue();
            assertThat(ran.get() + refused.get() + returned.size()).as("trial %d", trial).isEqualTo(submitted);
            assertThat(ranWithoutInterrupt.get()).as("trial %d: started after shutdownNow, not interrupted", trial)
                .isZero();
            assertThat(executor.getBulkhead().getWaitingCount()).isZero();
            assertThat(executor.getBulkhead().getActiveCount()).isZero();
        }
    }

    private static BoundedVirtualExecutor executor(String name, Duration maxWait) {
        return BoundedVirtualExecutor.builder(name).maxConcurrentCalls(1).maxWaitDuration(maxWait).build();
    }

    private static final class Recording extends Waiter {

        final AtomicInteger permits = new AtomicInteger();

        @Override
        protected boolean onPermit(long waitNanos) {
            this.permits.incrementAndGet();
            return true;
        }

        @Override
        protected void onReject(BulkheadRejectedException rejection) {
            throw new AssertionError("not expected", rejection);
        }
    }
}
