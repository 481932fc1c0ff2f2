package io.github.loombulkhead;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/** A limit leased from outside: shrinking never loses track of a permit in use, growing serves waiters. */
class ExternalLimitTest {

    private final List<Integer> boundChanges = new ArrayList<>();

    private final AtomicInteger queued = new AtomicInteger();

    private final AtomicInteger released = new AtomicInteger();

    private final ExternalLimit.Owner owner = new ExternalLimit.Owner() {

        @Override
        public void onQueued(Bulkhead bulkhead) {
            ExternalLimitTest.this.queued.incrementAndGet();
        }

        @Override
        public void onReleased(Bulkhead bulkhead) {
            ExternalLimitTest.this.released.incrementAndGet();
        }

        @Override
        public void onMaxConcurrentCallsChanged(Bulkhead bulkhead, int maxConcurrentCalls) {
            ExternalLimitTest.this.boundChanges.add(maxConcurrentCalls);
        }
    };

    private final Bulkhead bulkhead = new Bulkhead("leased", BulkheadConfig.custom()
        .maxConcurrentCalls(10)
        .maxWaitDuration(Duration.ofSeconds(10))
        .build());

    @Test
    void startsWithNoPermitsAndGrowingServesWaitersInOrder() throws Exception {
        ExternalLimit external = ExternalLimit.attach(this.bulkhead, this.owner);
        assertThat(this.bulkhead.getLimit()).isZero();
        assertThat(this.bulkhead.tryAcquirePermit()).isFalse();
        CompletableFuture<Void> parked = CompletableFuture.runAsync(this.bulkhead::acquirePermit,
                (task) -> Thread.startVirtualThread(task));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.bulkhead.getWaitingCount() == 1);
        assertThat(this.queued).hasValue(1);
        external.grow(1);
        parked.get(5, TimeUnit.SECONDS);
        assertThat(this.bulkhead.getActiveCount()).isEqualTo(1);
    }

    @Test
    void anOwnerThatFailsToHearOfAWaiterStillLetsItWaitAndRunOnce() throws Exception {
        ExternalLimit external = ExternalLimit.attach(this.bulkhead, new ExternalLimit.Owner() {

            @Override
            public void onQueued(Bulkhead bulkhead) {
                throw new IllegalStateException("owner failed");
            }

            @Override
            public void onMaxConcurrentCallsChanged(Bulkhead bulkhead, int maxConcurrentCalls) {
            }
        });
        // Had the failure reached the caller, the waiter would still be queued: granted a permit nobody releases.
        CompletableFuture<Void> parked = CompletableFuture.runAsync(this.bulkhead::acquirePermit,
                (task) -> Thread.startVirtualThread(task));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.bulkhead.getWaitingCount() == 1);
        external.grow(1);
        parked.get(5, TimeUnit.SECONDS);
        assertThat(this.bulkhead.getActiveCount()).isEqualTo(1);
        this.bulkhead.onComplete(0);
        // A task that waits: its submit neither fails nor leaves it to run twice.
        external.shrinkTo(0);
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.of(this.bulkhead)) {
            AtomicInteger runs = new AtomicInteger();
            CompletableFuture<Integer> task = executor.supplyAsync(runs::incrementAndGet);
            await().atMost(Duration.ofSeconds(5)).until(() -> this.bulkhead.getWaitingCount() == 1);
            external.grow(1);
            assertThat(task.get(5, TimeUnit.SECONDS)).isEqualTo(1);
            executor.shutdown();
            assertThat(executor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
            assertThat(runs).hasValue(1);
        }
        assertThat(this.bulkhead.getActiveCount()).isZero();
    }

    @Test
    void shrinkingReportsThePermitsStillInUse() {
        ExternalLimit external = ExternalLimit.attach(this.bulkhead, this.owner);
        external.grow(3);
        this.bulkhead.acquirePermit();
        this.bulkhead.acquirePermit();
        assertThat(external.shrinkTo(1)).isEqualTo(2);
        assertThat(external.shrinkTo(0)).isEqualTo(2);
        this.bulkhead.onComplete(0);
        assertThat(external.shrinkTo(0)).isEqualTo(1);
        this.bulkhead.onComplete(0);
        assertThat(external.shrinkTo(0)).isZero();
    }

    @Test
    void aPermitGivenBackUnusedIsTheOwnersNewsAndACompletedCallIsNot() {
        ExternalLimit external = ExternalLimit.attach(this.bulkhead, this.owner);
        external.grow(2);
        this.bulkhead.acquirePermit();
        this.bulkhead.acquirePermit();
        this.bulkhead.releasePermit();
        assertThat(this.released).hasValue(1);
        // A completed call reaches the owner as every listener hears of it (onCompleted), not twice.
        this.bulkhead.onComplete(0);
        assertThat(this.released).hasValue(1);
        assertThat(external.shrinkTo(0)).isZero();
    }

    @Test
    void changeLimitSetsOnlyTheBoundAndTellsTheOwner() {
        ExternalLimit.attach(this.bulkhead, this.owner);
        this.bulkhead.changeLimit(25);
        assertThat(this.bulkhead.getConfig().getMaxConcurrentCalls()).isEqualTo(25);
        assertThat(this.bulkhead.getLimit()).isZero();
        assertThat(this.boundChanges).containsExactly(25);
    }

    @Test
    void aLeasedLimitRefusesNoWaitBecauseItsCallsWaitForLeases() {
        ExternalLimit external = ExternalLimit.attach(this.bulkhead, this.owner);
        assertThat(this.bulkhead.isLimitLeased()).isTrue();
        assertThatIllegalArgumentException().isThrownBy(() -> this.bulkhead.changeMaxWaitDuration(Duration.ZERO))
            .withMessage("Bulkhead 'leased': its limit is leased (a cluster bulkhead), and its calls wait for the "
                    + "permits leased for them, so maxWaitDuration must be above 0 but was PT0S");
        assertThat(this.bulkhead.getConfig().getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(10));
        external.detach();
        assertThat(this.bulkhead.isLimitLeased()).isFalse();
        this.bulkhead.changeMaxWaitDuration(Duration.ZERO);
        assertThat(this.bulkhead.getConfig().getMaxWaitDuration()).isZero();
    }

    @Test
    void rejectingWaitersLeavesTasksQueuedWhoseFutureTheExecutorDidNotCreate() throws Exception {
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("leased-executor")
            .maxConcurrentCalls(10)
            .maxWaitDuration(Duration.ofSeconds(30))
            .build()) {
            ExternalLimit external = ExternalLimit.attach(executor.getBulkhead(), this.owner);
            AtomicInteger ran = new AtomicInteger();
            Runnable task = ran::incrementAndGet;
            CompletableFuture<Void> foreign = CompletableFuture.runAsync(task, executor);
            CompletableFuture<Void> own = executor.runAsync(task);
            assertThat(executor.getBulkhead().getWaitingCount()).isEqualTo(2);
            // Only the task whose future the executor created can be told; the other one keeps waiting.
            assertThat(external.rejectWaiting(RejectionReason.CLUSTER_UNAVAILABLE, "down")).isEqualTo(1);
            assertThat(own).failsWithin(Duration.ofSeconds(5));
            assertThat(executor.getBulkhead().getWaitingCount()).isEqualTo(1);
            assertThat(foreign).isNotDone();
            external.grow(1);
            foreign.get(5, TimeUnit.SECONDS);
            assertThat(ran).hasValue(1);
            assertThat(executor.getBulkhead().getRejectedCount()).isEqualTo(1);
        }
    }

    @Test
    void rejectingWaitersReachesParkedCallersWithTheReason() throws Exception {
        ExternalLimit external = ExternalLimit.attach(this.bulkhead, this.owner);
        CompletableFuture<Void> parked = CompletableFuture.runAsync(this.bulkhead::acquirePermit,
                (task) -> Thread.startVirtualThread(task));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.bulkhead.getWaitingCount() == 1);
        assertThat(external.rejectWaiting(RejectionReason.CLUSTER_UNAVAILABLE, "cluster down")).isEqualTo(1);
        assertThat(parked).failsWithin(Duration.ofSeconds(5))
            .withThrowableThat()
            .havingCause()
            .isInstanceOfSatisfying(BulkheadRejectedException.class,
                    (ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.CLUSTER_UNAVAILABLE));
        assertThat(this.bulkhead.getRejectedCount(RejectionReason.CLUSTER_UNAVAILABLE)).isEqualTo(1);
        assertThat(this.bulkhead.getWaitingCount()).isZero();
    }

    @Test
    void aWaiterThatThrowsAnErrorOnItsRejectionDoesNotKeepTheOthersFromTheirs() throws Exception {
        ExternalLimit external = ExternalLimit.attach(this.bulkhead, this.owner);
        Waiter failing = new Waiter() {

            @Override
            protected boolean onPermit(long waitNanos) {
                throw new AssertionError("never granted");
            }

            @Override
            protected void onReject(BulkheadRejectedException rejection) {
                throw new AssertionError("a bug where the waiter is told");
            }
        };
        assertThat(this.bulkhead.acquireOrEnqueue(failing)).isFalse();
        CompletableFuture<Void> parked = CompletableFuture.runAsync(this.bulkhead::acquirePermit,
                (task) -> Thread.startVirtualThread(task));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.bulkhead.getWaitingCount() == 2);

        assertThat(external.rejectWaiting(RejectionReason.CLUSTER_UNAVAILABLE, "cluster down")).isEqualTo(2);

        assertThat(parked).failsWithin(Duration.ofSeconds(5))
            .withThrowableThat()
            .havingCause()
            .isInstanceOf(BulkheadRejectedException.class);
        assertThat(this.bulkhead.getRejectedCount(RejectionReason.CLUSTER_UNAVAILABLE)).isEqualTo(2);
        assertThat(this.bulkhead.getWaitingCount()).isZero();
    }

    @Test
    void aFallbackThatBlocksOnItsRejectionHoldsUpNeitherTheOwnerNorTheOtherWaiters() throws Exception {
        CountDownLatch fallbackEntered = new CountDownLatch(1);
        CountDownLatch fallbackMayReturn = new CountDownLatch(1);
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("leased-fallback")
            .maxConcurrentCalls(10)
            .maxWaitDuration(Duration.ofSeconds(30))
            .build()) {
            ExternalLimit external = ExternalLimit.attach(executor.getBulkhead(), this.owner);
            CompletableFuture<String> first = executor.supplyAsync(() -> "first").exceptionally((ex) -> {
                fallbackEntered.countDown();
                try {
                    // Bounded, so that a regression fails below instead of hanging.
                    fallbackMayReturn.await(30, TimeUnit.SECONDS);
                }
                catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
                return "fallback";
            });
            CompletableFuture<String> second = executor.supplyAsync(() -> "second");
            try {
                // As on the thread that found Redis unreachable: it returns while the first fallback still blocks.
                assertThat(external.rejectWaiting(RejectionReason.CLUSTER_UNAVAILABLE, "cluster down")).isEqualTo(2);
                assertThat(first).as("its fallback still blocks").isNotDone();
                assertThat(executor.getBulkhead().getRejectedCount(RejectionReason.CLUSTER_UNAVAILABLE)).isEqualTo(2);
                assertThat(fallbackEntered.await(5, TimeUnit.SECONDS)).isTrue();
                assertThat(second).failsWithin(Duration.ofSeconds(5))
                    .withThrowableThat()
                    .havingCause()
                    .isInstanceOf(BulkheadRejectedException.class);
                assertThat(first).isNotDone();
            }
            finally {
                fallbackMayReturn.countDown();
            }
            assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("fallback");
        }
    }

    @Test
    void anAdaptiveOrAlreadyLeasedLimitCannotBeLeased() {
        ExternalLimit.attach(this.bulkhead, this.owner);
        assertThatIllegalStateException().isThrownBy(() -> ExternalLimit.attach(this.bulkhead, this.owner))
            .withMessage("Bulkhead 'leased': its limit is already leased; a leased limit needs a static one");
    }

    @Test
    void detachingGivesTheLimitBackToTheConfig() {
        ExternalLimit external = ExternalLimit.attach(this.bulkhead, this.owner);
        external.detach();
        assertThat(this.bulkhead.getLimit()).isEqualTo(10);
    }

    @Test
    void callsRacingAShrinkNeverExceedWhatItReports() throws Exception {
        ExternalLimit external = ExternalLimit.attach(this.bulkhead, this.owner);
        AtomicInteger inUse = new AtomicInteger();
        // The bound in force, with an epoch (high 32 bits) so a caller knows it did not change under it.
        AtomicLong bound = new AtomicLong(8);
        AtomicInteger violations = new AtomicInteger();
        external.grow(8);
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            callers.add(Thread.ofPlatform().start(() -> {
                while (System.nanoTime() < end) {
                    if (this.bulkhead.tryAcquirePermit()) {
                        long before = bound.get();
                        int used = inUse.incrementAndGet();
                        if (bound.get() == before && used > (int) before) {
                            violations.incrementAndGet();
                        }
                        inUse.decrementAndGet();
                        this.bulkhead.releasePermit();
                    }
                }
            }));
        }
        int rounds = 0;
        while (System.nanoTime() < end) {
            int keep = external.shrinkTo(rounds % 4);
            // What it reported is an upper bound from now on, until it grows again.
            bound.set(((2L * rounds + 1) << 32) | keep);
            Thread.onSpinWait();
            bound.set(((2L * rounds + 2) << 32) | 8);
            external.grow(8);
            rounds++;
        }
        for (Thread caller : callers) {
            caller.join();
        }
        assertThat(rounds).isGreaterThan(100);
        assertThat(violations).hasValue(0);
        assertThat(this.bulkhead.getActiveCount()).isZero();
    }
}
