package io.github.loombulkhead;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.DropClassifier;
import io.github.loombulkhead.limit.LimitRamp;
import io.github.loombulkhead.limit.Outcome;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/** A bulkhead whose limit an algorithm finds: samples move it, the ceiling and minimum hold. */
class AdaptiveBulkheadTest {

    private final RecordingSamples samples = new RecordingSamples();

    private Bulkhead adaptive(int ceiling, int initial, int min) {
        Bulkhead bulkhead = new Bulkhead("adaptive", BulkheadConfig.custom()
            .maxConcurrentCalls(ceiling)
            .adaptive(AdaptiveLimitConfig.custom()
                .algorithm(AdaptiveLimitConfig.Algorithm.AIMD)
                .initialLimit(initial)
                .minLimit(min)
                .build())
            .build());
        bulkhead.addListener(this.samples);
        return bulkhead;
    }

    /** Fills every permit, then completes the calls with {@code outcome}, as a saturated caller would. */
    private static void saturatedRound(Bulkhead bulkhead, Outcome outcome) {
        saturatedRound(bulkhead, outcome, -1);
    }

    /** As {@link #saturatedRound(Bulkhead, Outcome)}, every call taking {@code rttNanos} (-1: as long as it did). */
    private static void saturatedRound(Bulkhead bulkhead, Outcome outcome, long rttNanos) {
        int limit = bulkhead.getLimit();
        long start = System.nanoTime();
        for (int i = 0; i < limit; i++) {
            assertThat(bulkhead.tryAcquirePermit()).isTrue();
        }
        for (int i = 0; i < limit; i++) {
            long rtt = (rttNanos >= 0) ? rttNanos : System.nanoTime() - start;
            bulkhead.onComplete(rtt, rtt, limit, outcome);
        }
    }

    /**
     * Saturated rounds of successes that each took {@code rttNanos}, until the algorithm proposes a rise (at most for
     * 10 s); returns {@link System#nanoTime()} before the round that earned it. A pause of this process within a
     * call's round trip (on a loaded machine the pause detector sees its thread wake 10 ms late or more) makes it a
     * call the pause held up, which adds no growth: another round then.
     */
    private static long risingRound(Bulkhead bulkhead, long rttNanos) {
        int before = bulkhead.getLimitAlgorithm().getLimit();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            long start = System.nanoTime();
            saturatedRound(bulkhead, Outcome.SUCCESS, rttNanos);
            if (bulkhead.getLimitAlgorithm().getLimit() > before || start > deadline) {
                return start;
            }
        }
    }

    @Test
    void startsAtTheInitialLimitAndTheCeilingIsTheMaxConcurrentCalls() {
        Bulkhead bulkhead = adaptive(50, 10, 2);
        assertThat(bulkhead.getLimit()).isEqualTo(10);
        assertThat(bulkhead.getCeiling()).isEqualTo(50);
        assertThat(bulkhead.isAdaptive()).isTrue();
        assertThat(bulkhead.getConfig().getAdaptive().getMaxLimit()).isEqualTo(50);
        assertThat(bulkhead.getLimitAlgorithm().getName()).isEqualTo("aimd");
    }

    @Test
    void successfulSaturatedCallsGrowTheLimitUpToTheCeilingAndNoFurther() {
        Bulkhead bulkhead = adaptive(50, 10, 2);
        for (int round = 0; round < 200; round++) {
            saturatedRound(bulkhead, Outcome.SUCCESS);
            assertThat(bulkhead.getLimit()).isBetween(10, 50);
        }
        assertThat(bulkhead.getLimit()).isEqualTo(50);
        assertThat(this.samples.outcomes).containsOnly(Outcome.SUCCESS);
    }

    @Test
    void dropsLowerTheLimitButNeverBelowTheMinimum() {
        Bulkhead bulkhead = adaptive(50, 40, 3);
        int before = bulkhead.getLimit();
        saturatedRound(bulkhead, Outcome.DROPPED);
        assertThat(bulkhead.getLimit()).isLessThan(before);
        for (int round = 0; round < 100; round++) {
            saturatedRound(bulkhead, Outcome.DROPPED);
            assertThat(bulkhead.getLimit()).isGreaterThanOrEqualTo(3);
        }
        assertThat(bulkhead.getLimit()).isEqualTo(3);
        assertThat(bulkhead.getActiveCount()).isZero();
    }

    @Test
    void callsStillInFlightLongPastTheNoLoadRttLowerTheLimitBeforeTheyComplete() {
        // A pause of this whole process (a loaded build machine) can hide the calls' age: the pause detector then
        // takes every sample taken across it as held up, and such a sample looks at no calls in flight. Another
        // bulkhead then tries again; without the late calls, none would ever lower its limit.
        for (int attempt = 1; attempt <= 3; attempt++) {
            if (stuckCallsLowerTheLimit()) {
                return;
            }
        }
        throw new AssertionError("40 calls still in flight long past the no-load RTT lowered no limit, 3 times");
    }

    /**
     * A new bulkhead learns the no-load RTT from quick calls, then 40 calls start and stay in flight; calls that
     * completed 35 to 95 ms after them must lower the limit before any of the 40 completes.
     */
    private static boolean stuckCallsLowerTheLimit() {
        Bulkhead bulkhead = new Bulkhead("late", BulkheadConfig.custom()
            .maxConcurrentCalls(100)
            .adaptive(AdaptiveLimitConfig.ofDefaults())
            .build());
        assertThat(bulkhead.getLimit()).isEqualTo(100);
        // One quick call at a time until the first window closes, and one more: the algorithm starts watching the
        // calls in flight when the first sample after that window arrives.
        long learning = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (bulkhead.getLimitAlgorithm().getEstimates().get("noLoadRttNanos").longValue() == 0) {
            assertThat(System.nanoTime() - learning).as("the no-load RTT is known within 10 s").isNegative();
            quickCall(bulkhead);
        }
        quickCall(bulkhead);
        assertThat(bulkhead.getLimit()).as("quick calls alone never lower it").isEqualTo(100);
        long sent = System.nanoTime();
        int[] stuck = new int[40];
        for (int i = 0; i < stuck.length; i++) {
            // Calls the callee holds on to: they start, and do not come back.
            assertThat(bulkhead.tryAcquirePermit()).isTrue();
            stuck[i] = bulkhead.callStarted();
        }
        // Quick calls that started 15, 25, ... 75 ms after them, each answered in the no-load RTT of 20 ms: they
        // tell the time 35 to 95 ms after the 40 started, past the 21.5 ms at which a call is late while starting and
        // within the four no-load RTTs (80 ms) for which the algorithm remembers calls. Each reports its start as it
        // completes (how long it held its permit), so the times are the same however late this thread runs.
        for (int i = 0; i < 7 && bulkhead.getLimit() >= 50; i++) {
            long start = sent + TimeUnit.MILLISECONDS.toNanos(15 + 10 * i);
            long answered = start + QUICK_RTT_NANOS;
            while (System.nanoTime() - answered < 0) {
                LockSupport.parkNanos(answered - System.nanoTime());
            }
            assertThat(bulkhead.tryAcquirePermit()).isTrue();
            bulkhead.onComplete(System.nanoTime() - start, QUICK_RTT_NANOS, -1, Outcome.SUCCESS);
        }
        boolean lowered = bulkhead.getLimit() < 50;
        // None of them completed, and the quick calls around them came back in time: their age alone told.
        assertThat(bulkhead.getActiveCount()).isEqualTo(stuck.length);
        for (int inflight : stuck) {
            long held = System.nanoTime() - sent;
            bulkhead.onComplete(held, held, inflight, Outcome.IGNORED);
        }
        assertThat(bulkhead.getActiveCount()).isZero();
        return lowered;
    }

    /**
     * A call that holds its permit for at least 20 ms and succeeds. It reports how long it held the permit, so that its
     * start is known, and a round trip of exactly 20 ms, so that a slow machine shows the windows no queue.
     */
    private static void quickCall(Bulkhead bulkhead) {
        assertThat(bulkhead.tryAcquirePermit()).isTrue();
        long start = System.nanoTime();
        int inflight = bulkhead.callStarted();
        LockSupport.parkNanos(QUICK_RTT_NANOS);
        bulkhead.onComplete(System.nanoTime() - start, QUICK_RTT_NANOS, inflight, Outcome.SUCCESS);
    }

    private static final long QUICK_RTT_NANOS = 20_000_000;

    @Test
    void aStaticBulkheadIsToldOfNoStart() {
        Bulkhead bulkhead = new Bulkhead("static", BulkheadConfig.custom().maxConcurrentCalls(5).build());
        assertThat(bulkhead.tryAcquirePermit()).isTrue();
        assertThat(bulkhead.callStarted()).isEqualTo(-1);
        bulkhead.onComplete(1, 1, -1, Outcome.SUCCESS);
        assertThat(bulkhead.getActiveCount()).isZero();
    }

    @Test
    void ignoredCallsGiveTheirPermitBackWithoutASample() {
        Bulkhead bulkhead = adaptive(50, 10, 2);
        saturatedRound(bulkhead, Outcome.IGNORED);
        assertThat(this.samples.outcomes).isEmpty();
        assertThat(bulkhead.getLimit()).isEqualTo(10);
        assertThat(bulkhead.getCompletedCount()).isEqualTo(10);
    }

    @Test
    void changingTheLimitOfAnAdaptiveBulkheadSetsItsCeiling() {
        Bulkhead bulkhead = adaptive(50, 30, 2);
        bulkhead.changeLimit(20);
        assertThat(bulkhead.getCeiling()).isEqualTo(20);
        assertThat(bulkhead.getConfig().getMaxConcurrentCalls()).isEqualTo(20);
        assertThat(bulkhead.getLimit()).isEqualTo(20);
        for (int round = 0; round < 100; round++) {
            saturatedRound(bulkhead, Outcome.SUCCESS);
        }
        assertThat(bulkhead.getLimit()).isEqualTo(20);
        bulkhead.changeLimit(40);
        assertThat(bulkhead.getCeiling()).isEqualTo(40);
        assertThat(bulkhead.getLimit()).as("the algorithm goes on from where it was").isEqualTo(20);
        assertThatIllegalArgumentException().isThrownBy(() -> bulkhead.changeLimit(1))
            .withMessageContaining("Bulkhead 'adaptive'");
    }

    @Test
    void aCeilingBelowTheMinimumIsRefusedNamingWhatTheCallerSet() {
        Bulkhead bulkhead = adaptive(50, 10, 5);
        assertThatIllegalArgumentException().isThrownBy(() -> bulkhead.changeLimit(3))
            .withMessage("Bulkhead 'adaptive': maxConcurrentCalls is the ceiling of its adaptive limit and must be at "
                    + "least its minLimit 5 but was 3; choose a larger limit or a smaller adaptive minLimit");
        assertThat(bulkhead.getCeiling()).isEqualTo(50);
        assertThat(bulkhead.getLimit()).isEqualTo(10);
    }

    @Test
    void theDefaultStartIsLoweredToASmallerCeiling() {
        BulkheadConfig config = BulkheadConfig.custom()
            .maxConcurrentCalls(10)
            .adaptive(AdaptiveLimitConfig.ofDefaults())
            .build();
        assertThat(AdaptiveLimitConfig.DEFAULT_INITIAL_LIMIT).isGreaterThan(10);
        assertThat(config.getAdaptive().getInitialLimit()).isEqualTo(10);
        assertThat(new Bulkhead("small", config).getLimit()).isEqualTo(10);
    }

    @Test
    void impossibleAdaptiveSettingsFailNamingTheValues() {
        assertThatIllegalArgumentException().isThrownBy(() -> BulkheadConfig.custom()
            .maxConcurrentCalls(10)
            .adaptive(AdaptiveLimitConfig.custom().initialLimit(20).minLimit(5).build())
            .build()).withMessageContaining("maxConcurrentCalls 10").withMessageContaining("20");
    }

    @Test
    void executorTasksAreSampledAsDropsOnlyForTimeoutsAndRefusedConnections() throws Exception {
        Bulkhead bulkhead = adaptive(50, 10, 2);
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.of(bulkhead)) {
            executor.submit(() -> "ok").get(30, TimeUnit.SECONDS);
            catchThrowableOfType(ExecutionException.class, () -> executor.submit(() -> {
                throw new SocketTimeoutException("read timed out");
            }).get(30, TimeUnit.SECONDS));
            catchThrowableOfType(ExecutionException.class, () -> executor.submit(() -> {
                throw new IllegalStateException("the callee answered with an error");
            }).get(30, TimeUnit.SECONDS));
            executor.supplyAsync(() -> {
                throw new RuntimeException(new java.net.ConnectException("refused"));
            }).handle((value, ex) -> value).get(30, TimeUnit.SECONDS);
        }
        assertThat(this.samples.outcomes).containsExactly(Outcome.SUCCESS, Outcome.DROPPED, Outcome.SUCCESS,
                Outcome.DROPPED);
    }

    @Test
    void executorTasksCancelledAfterTheirThreadStartedButBeforeTheyRanAreNoSample() throws Exception {
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch cancelled = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("cancelled")
            .maxConcurrentCalls(50)
            .adaptive(AdaptiveLimitConfig.custom().initialLimit(10).build())
            .taskDecorator((task) -> () -> {
                started.countDown();
                try {
                    cancelled.await();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                task.run();
            })
            .build();
        Bulkhead bulkhead = executor.getBulkhead();
        bulkhead.addListener(this.samples);
        try (executor) {
            Future<String> submitted = executor.submit(() -> {
                ran.incrementAndGet();
                return "ran";
            });
            CompletableFuture<String> supplied = executor.supplyAsync(() -> {
                ran.incrementAndGet();
                return "ran";
            });
            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(submitted.cancel(false)).isTrue();
            assertThat(supplied.cancel(false)).isTrue();
            cancelled.countDown();
        }
        assertThat(ran).hasValue(0);
        assertThat(this.samples.outcomes).as("neither task reached the callee").isEmpty();
        assertThat(bulkhead.getActiveCount()).isZero();
        assertThat(bulkhead.getCompletedCount()).isEqualTo(2);
    }

    @Test
    void tasksWhoseDecoratorFailsOrSkipsThemCompleteExceptionallyAndAreSampledOnlyForAnOverloadSignal()
            throws Exception {
        AtomicInteger mode = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("decorator-fails")
            .maxConcurrentCalls(50)
            .adaptive(AdaptiveLimitConfig.custom().initialLimit(10).build())
            .taskDecorator((task) -> {
                int chosen = mode.get();
                return () -> {
                    switch (chosen) {
                        case 0 -> throw new IllegalStateException("no context to restore");
                        case 1 -> throw new IllegalStateException("context store unreachable",
                                new SocketTimeoutException("read timed out"));
                        default -> {
                            // Returns without running the task.
                        }
                    }
                };
            })
            .build();
        Bulkhead bulkhead = executor.getBulkhead();
        bulkhead.addListener(this.samples);
        try (executor) {
            Future<String> failed = executor.submit(() -> "ran " + ran.incrementAndGet());
            assertThat(catchThrowableOfType(ExecutionException.class, () -> failed.get(30, TimeUnit.SECONDS)))
                .cause().hasMessage("no context to restore");
            mode.set(1);
            CompletableFuture<String> timedOut = executor.supplyAsync(() -> "ran " + ran.incrementAndGet());
            assertThat(catchThrowableOfType(ExecutionException.class, () -> timedOut.get(30, TimeUnit.SECONDS)))
                .cause().hasMessage("context store unreachable");
            mode.set(2);
            Future<String> skipped = executor.submit(() -> "ran " + ran.incrementAndGet());
            assertThat(catchThrowableOfType(ExecutionException.class, () -> skipped.get(30, TimeUnit.SECONDS)))
                .cause().hasMessage("Bulkhead 'decorator-fails': the task decorator returned without running the task");
        }
        assertThat(ran).hasValue(0);
        // Only the failure with a timeout among its causes says something about the callee.
        assertThat(this.samples.outcomes).containsExactly(Outcome.DROPPED);
        assertThat(bulkhead.getActiveCount()).isZero();
        assertThat(bulkhead.getCompletedCount()).isEqualTo(3);
    }

    @Test
    void tasksInsideAWrappingFutureAreSampledByTheirOwnOutcome() throws Exception {
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("wrapped")
            .maxConcurrentCalls(1)
            .adaptive(AdaptiveLimitConfig.custom().initialLimit(1).minLimit(1).build())
            .build();
        Bulkhead bulkhead = executor.getBulkhead();
        bulkhead.addListener(this.samples);
        try (executor) {
            // An ExecutorCompletionService runs the executor's own future inside a FutureTask of its own, which
            // catches what the task throws.
            ExecutorCompletionService<String> completion = new ExecutorCompletionService<>(executor);
            completion.submit(() -> {
                throw new SocketTimeoutException("read timed out");
            });
            assertThat(completion.take()).failsWithin(Duration.ofSeconds(30))
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(SocketTimeoutException.class);
            assertThat(completion.submit(() -> "fine").get(30, TimeUnit.SECONDS)).isEqualTo("fine");
            // A call is counted completed before its sample reaches the listeners, and the second task may start on
            // the permit the first gives back before the first's sample is out.
            await().atMost(Duration.ofSeconds(30)).until(() -> this.samples.outcomes.size() == 2);
            assertThat(this.samples.outcomes).containsExactlyInAnyOrder(Outcome.DROPPED, Outcome.SUCCESS);
            this.samples.outcomes.clear();

            // Cancelled while they waited: an ExecutorCompletionService's task runs as nothing inside its wrapper,
            // which is no sample, and a FutureTask of the caller's gets no permit at all; a FutureTask that failed
            // is sampled by its failure.
            bulkhead.acquirePermit();
            Future<String> cancelledInside = completion.submit(() -> "never");
            FutureTask<String> cancelledOwn = new FutureTask<>(() -> "never");
            executor.execute(cancelledOwn);
            FutureTask<String> failed = new FutureTask<>(() -> {
                throw new SocketTimeoutException("read timed out");
            });
            executor.execute(failed);
            await().atMost(Duration.ofSeconds(30)).until(() -> bulkhead.getWaitingCount() == 3);
            cancelledInside.cancel(false);
            cancelledOwn.cancel(false);
            bulkhead.onComplete(0);
            assertThat(failed).failsWithin(Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(30)).until(() -> bulkhead.getCompletedCount() == 5);
            assertThat(this.samples.outcomes).containsExactly(Outcome.DROPPED);
            assertThat(bulkhead.getActiveCount()).isZero();
            assertThat(bulkhead.getWaitingCount()).isZero();
            assertThat(bulkhead.getPermittedCount()).isEqualTo(5);
        }
    }

    @Test
    void aCallEndedByACancellationIsNoSampleWhateverTheClassifierSays() {
        Bulkhead bulkhead = new Bulkhead("cancelled", BulkheadConfig.custom()
            .adaptive(AdaptiveLimitConfig.custom().build())
            .dropClassifier(DropClassifier.of(List.of(RuntimeException.class)))
            .build());
        // An @Bulkhead method's stage cancelled by its caller, or a task whose future.get() met a cancelled one.
        assertThat(bulkhead.outcomeOf(new CancellationException())).isEqualTo(Outcome.IGNORED);
        assertThat(bulkhead.outcomeOf(new CompletionException(new CancellationException()))).isEqualTo(Outcome.IGNORED);
        assertThat(bulkhead.outcomeOf(new IllegalStateException())).isEqualTo(Outcome.DROPPED);
        assertThat(bulkhead.outcomeOf(null)).isEqualTo(Outcome.SUCCESS);
    }

    @Test
    void tasksCutShortByAnInterruptAreNoSample() throws Exception {
        BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("interrupted")
            .maxConcurrentCalls(50)
            .adaptive(AdaptiveLimitConfig.custom().initialLimit(10).build())
            .build();
        Bulkhead bulkhead = executor.getBulkhead();
        bulkhead.addListener(this.samples);
        CountDownLatch losersRunning = new CountDownLatch(2);
        String winner = executor.invokeAny(List.of(() -> {
            Thread.sleep(60_000);
            return "slept";
        }, () -> {
            try {
                losersRunning.countDown();
                Thread.sleep(60_000);
                return "slept";
            }
            catch (InterruptedException ex) {
                // What a blocking read reports when its thread is interrupted: a timeout type by default.
                throw new java.io.InterruptedIOException("read interrupted");
            }
        }, () -> {
            losersRunning.countDown();
            assertThat(losersRunning.await(30, TimeUnit.SECONDS)).isTrue();
            return "fast";
        }));
        assertThat(winner).isEqualTo("fast");
        await().atMost(Duration.ofSeconds(30)).until(() -> bulkhead.getCompletedCount() == 3);
        // invokeAny cancelled the two losers while they ran: only the winner tells something about the callee.
        assertThat(this.samples.outcomes).containsExactly(Outcome.SUCCESS);
        this.samples.outcomes.clear();
        CountDownLatch running = new CountDownLatch(2);
        executor.submit(() -> {
            running.countDown();
            Thread.sleep(60_000);
            return "slept";
        });
        executor.submit(() -> {
            running.countDown();
            try {
                Thread.sleep(60_000);
                return "slept";
            }
            catch (InterruptedException ex) {
                // Ends normally, its thread still interrupted: cut short all the same.
                Thread.currentThread().interrupt();
                return "cut short";
            }
        });
        assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
        executor.shutdownNow();
        assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(this.samples.outcomes).as("tasks interrupted by shutdownNow").isEmpty();
        assertThat(bulkhead.getActiveCount()).isZero();
    }

    @Test
    void aRiseReachesTheBulkheadInStepsOverHalfTheRoundTripThatEarnedItAndADecreaseAtOnce() {
        Bulkhead bulkhead = adaptive(50, 10, 2);
        long rtt = TimeUnit.SECONDS.toNanos(4);
        long proposedAt = risingRound(bulkhead, rtt);
        int proposed = bulkhead.getLimitAlgorithm().getLimit();
        assertThat(proposed).isGreaterThan(10);
        assertThat(bulkhead.getLimit()).as("the first step is due 250 ms after the rise").isEqualTo(10);
        await().atMost(Duration.ofSeconds(30)).until(() -> bulkhead.getLimit() == proposed);
        assertThat(System.nanoTime() - proposedAt).as("the last step is due half the round trip after the rise")
            .isGreaterThanOrEqualTo(rtt / 2);
        // Each of the 8 steps releases (proposed - 10) / 8 permits: a whole one at min(8, proposed - 10) of them.
        assertThat(this.samples.limits).hasSize(Math.min(LimitRamp.STEPS, proposed - 10))
            .doesNotHaveDuplicates()
            .isSorted()
            .endsWith(proposed);
        assertThat(this.samples.limitThreads).as("every step ran on a virtual thread named for the ramp")
            .allSatisfy((thread) -> {
                assertThat(thread.isVirtual()).isTrue();
                assertThat(thread.getName()).isEqualTo("loom-bulkhead-limit-ramp");
            });
        assertThat(bulkhead.tryAcquirePermit()).isTrue();
        bulkhead.onComplete(rtt, rtt, proposed, Outcome.DROPPED);
        assertThat(bulkhead.getLimit()).as("a decrease applies at once").isLessThan(proposed);
    }

    @Test
    void aProposalMadeWhileAnotherThreadChangesTheLimitIsAppliedByThatThread() throws Exception {
        Bulkhead bulkhead = adaptive(1000, 500, 1);
        AtomicBoolean first = new AtomicBoolean(true);
        AtomicInteger proposedMeanwhile = new AtomicInteger();
        bulkhead.addListener(new BulkheadListener() {

            @Override
            public void onLimitChanged(Bulkhead changed, int oldLimit, int newLimit) {
                if (!first.getAndSet(false)) {
                    return;
                }
                // Told while the first change holds the bulkhead's limit lock: another call drops meanwhile, on
                // another thread, and finds the lock taken.
                Thread other = Thread.ofVirtual().start(() -> {
                    if (bulkhead.tryAcquirePermit()) {
                        bulkhead.onComplete(1_000, 1_000, 1, Outcome.DROPPED);
                        proposedMeanwhile.set(bulkhead.getLimitAlgorithm().getLimit());
                    }
                });
                try {
                    other.join();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(ex);
                }
            }
        });
        assertThat(bulkhead.tryAcquirePermit()).isTrue();
        bulkhead.onComplete(1_000, 1_000, 1, Outcome.DROPPED);
        assertThat(this.samples.limits).as("the first drop halved the limit").startsWith(250);
        assertThat(proposedMeanwhile.get()).as("the second drop, a round later, lowered it again").isBetween(1, 249);
        assertThat(bulkhead.getLimit()).isEqualTo(proposedMeanwhile.get());
    }

    @Test
    void aDecreaseProposedWhileARampStepHoldsTheLockAppliesWhenTheStepEnds() {
        Bulkhead bulkhead = adaptive(50, 10, 2);
        AtomicBoolean first = new AtomicBoolean(true);
        AtomicInteger proposedMeanwhile = new AtomicInteger();
        bulkhead.addListener(new BulkheadListener() {

            @Override
            public void onLimitChanged(Bulkhead changed, int oldLimit, int newLimit) {
                if (!Thread.currentThread().getName().equals("loom-bulkhead-limit-ramp") || !first.getAndSet(false)) {
                    return;
                }
                // Told while the step holds the limit lock: a call drops meanwhile, on another thread.
                Thread other = Thread.ofVirtual().start(() -> {
                    if (bulkhead.tryAcquirePermit()) {
                        bulkhead.onComplete(1_000, 1_000, 1, Outcome.DROPPED);
                        proposedMeanwhile.set(bulkhead.getLimitAlgorithm().getLimit());
                    }
                });
                try {
                    other.join();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(ex);
                }
            }
        });
        long rtt = TimeUnit.MILLISECONDS.toNanos(80);
        risingRound(bulkhead, rtt);
        int risen = bulkhead.getLimitAlgorithm().getLimit();
        assertThat(risen).isGreaterThan(10);
        await().atMost(Duration.ofSeconds(30)).until(() -> proposedMeanwhile.get() > 0);
        assertThat(proposedMeanwhile.get()).as("the drop lowered the proposal below the rise").isLessThan(risen);
        await().atMost(Duration.ofSeconds(30)).until(() -> bulkhead.getLimit() == proposedMeanwhile.get());
    }

    @Test
    void aRiseAfterACeilingChangeStillReachesTheBulkhead() {
        Bulkhead bulkhead = adaptive(100, 10, 2);
        // A rise whose steps are 100 ms apart, pending when the ceiling changes.
        risingRound(bulkhead, TimeUnit.MILLISECONDS.toNanos(1600));
        assertThat(bulkhead.getLimit()).isEqualTo(10);
        bulkhead.changeLimit(100);
        // A rise of the restarted algorithm whose first step is due after the old ramp's timer.
        risingRound(bulkhead, TimeUnit.MILLISECONDS.toNanos(2000));
        int proposed = bulkhead.getLimitAlgorithm().getLimit();
        assertThat(proposed).isGreaterThan(10);
        await().atMost(Duration.ofSeconds(30)).until(() -> bulkhead.getLimit() == proposed);
    }

    @Test
    void aStaticBulkheadTakesNoSamples() {
        Bulkhead bulkhead = new Bulkhead("static", BulkheadConfig.custom().maxConcurrentCalls(5).build());
        bulkhead.addListener(this.samples);
        saturatedRound(bulkhead, Outcome.DROPPED);
        assertThat(bulkhead.getLimit()).isEqualTo(5);
        assertThat(bulkhead.isAdaptive()).isFalse();
        assertThat(this.samples.outcomes).isEmpty();
    }

    static final class RecordingSamples implements BulkheadListener {

        final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

        final List<Integer> limits = new CopyOnWriteArrayList<>();

        final List<Thread> limitThreads = new CopyOnWriteArrayList<>();

        @Override
        public void onLimitChanged(Bulkhead bulkhead, int oldLimit, int newLimit) {
            this.limits.add(newLimit);
            this.limitThreads.add(Thread.currentThread());
        }

        @Override
        public void onSample(Bulkhead bulkhead, long rttNanos, Outcome outcome) {
            this.outcomes.add(outcome);
        }

        /** A success that a pause of this process held up (a loaded machine running the build) is a success. */
        @Override
        public void onPausedSample(Bulkhead bulkhead, long rttNanos, long pausedNanos) {
            this.outcomes.add(Outcome.SUCCESS);
        }
    }
}
