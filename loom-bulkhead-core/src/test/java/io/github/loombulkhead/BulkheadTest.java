package io.github.loombulkhead;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.loombulkhead.limit.AdaptiveLimitConfig;

import static io.github.loombulkhead.Awaits.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The permit engine on its own: the non-blocking and parking paths, thread-less waiters,
 * hand-over to waiters, time-outs, interrupts and runtime changes.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class BulkheadTest {

    private static final Duration TOLERANCE = Duration.ofSeconds(5);

    @Test
    void tryAcquireTakesFreePermits() {
        Bulkhead bulkhead = bulkhead("try", BulkheadConfig.custom().maxConcurrentCalls(2));
        assertThat(bulkhead.tryAcquirePermit()).isTrue();
        assertThat(bulkhead.tryAcquirePermit()).isTrue();
        assertThat(bulkhead.getActiveCount()).isEqualTo(2);
        assertThat(bulkhead.getAvailablePermits()).isZero();
        assertThat(bulkhead.getPermittedCount()).isEqualTo(2);
    }

    @Test
    void tryAcquireWithoutAFreePermitFailsWithoutCountingARejection() {
        Bulkhead bulkhead = bulkhead("try", BulkheadConfig.custom().maxConcurrentCalls(1));
        bulkhead.tryAcquirePermit();
        assertThat(bulkhead.tryAcquirePermit()).isFalse();
        assertThat(bulkhead.getActiveCount()).isEqualTo(1);
        assertThat(bulkhead.getRejectedCount()).isZero();
    }

    @Test
    void releasePermitGivesThePermitBackWithoutCountingACompletedCall() {
        Bulkhead bulkhead = bulkhead("try", BulkheadConfig.custom().maxConcurrentCalls(2));
        bulkhead.tryAcquirePermit();
        bulkhead.releasePermit();
        assertThat(bulkhead.getActiveCount()).isZero();
        assertThat(bulkhead.getAvailablePermits()).isEqualTo(2);
        assertThat(bulkhead.getCompletedCount()).isZero();
    }

    @Test
    void onCompleteGivesThePermitBackAndCountsACompletedCall() {
        Bulkhead bulkhead = bulkhead("try", BulkheadConfig.custom().maxConcurrentCalls(2));
        bulkhead.tryAcquirePermit();
        bulkhead.onComplete(1_000);
        assertThat(bulkhead.getActiveCount()).isZero();
        assertThat(bulkhead.getAvailablePermits()).isEqualTo(2);
        assertThat(bulkhead.getCompletedCount()).isEqualTo(1);
    }

    @Test
    void listenersHearEachPermitAndEachCompletedCall() {
        RecordingListener listener = new RecordingListener();
        Bulkhead bulkhead = bulkhead("try", BulkheadConfig.custom().maxConcurrentCalls(2));
        bulkhead.addListener(listener);
        bulkhead.tryAcquirePermit();
        bulkhead.tryAcquirePermit();
        bulkhead.tryAcquirePermit();
        bulkhead.releasePermit();
        bulkhead.onComplete(1_000);
        assertThat(listener.permitted.sum()).isEqualTo(2);
        assertThat(listener.completed.sum()).isEqualTo(1);
        assertThat(listener.rejected.values()).allSatisfy((count) -> assertThat(count.sum()).isZero());
    }

    @Test
    void releasingMorePermitsThanAcquiredIsRefusedNamingTheBulkhead() {
        Bulkhead bulkhead = bulkhead("try", BulkheadConfig.custom().maxConcurrentCalls(2));
        bulkhead.tryAcquirePermit();
        bulkhead.onComplete(0);
        assertThatIllegalStateException().isThrownBy(bulkhead::releasePermit)
            .withMessageContaining("'try'")
            .withMessageContaining("more permits released than acquired");
        assertThat(bulkhead.getActiveCount()).isZero();
        assertThat(bulkhead.getAvailablePermits()).isEqualTo(2);
    }

    @Test
    void toStringNamesTheBulkheadItsLimitAndWhatItHolds() {
        Bulkhead bulkhead = bulkhead("try", BulkheadConfig.custom().maxConcurrentCalls(2));
        bulkhead.tryAcquirePermit();
        assertThat(bulkhead).hasToString("Bulkhead[try, limit=2, active=1, waiting=0]");
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void acquirePermitParksUntilAPermitIsHandedOver(Submitters callers) throws Exception {
        RecordingListener listener = new RecordingListener();
        Bulkhead bulkhead = bulkhead("park", BulkheadConfig.custom().maxConcurrentCalls(1));
        bulkhead.addListener(listener);
        bulkhead.acquirePermit();
        Submitters.Started<Long> caller = callers.call(() -> {
            long start = System.nanoTime();
            bulkhead.acquirePermit();
            return System.nanoTime() - start;
        });
        eventually().until(() -> bulkhead.getWaitingCount() == 1 && isParked(caller.thread()));
        // Lets 50 ms pass on purpose: the reported wait must cover them.
        eventually().during(Duration.ofMillis(50)).until(() -> !caller.result().isDone());
        bulkhead.onComplete(0);
        assertThat(bulkhead.tryAcquirePermit()).as("the permit went to the waiter, not to a newcomer").isFalse();
        long waited = caller.result().get(30, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(waited)).isGreaterThanOrEqualTo(Duration.ofMillis(50));
        assertThat(bulkhead.getActiveCount()).isEqualTo(1);
        assertThat(bulkhead.getWaitingCount()).isZero();
        assertThat(listener.events).filteredOn((event) -> event.type().equals("permitted"))
            .extracting(RecordingListener.Event::nanos)
            .satisfiesExactly((first) -> assertThat(first).isZero(),
                    (second) -> assertThat(Duration.ofNanos(second)).isGreaterThanOrEqualTo(Duration.ofMillis(50)));
        bulkhead.onComplete(0);
        assertThat(bulkhead.getAvailablePermits()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void acquirePermitTimesOutWithinTheMaxWait(Submitters callers) throws Exception {
        Duration maxWait = Duration.ofMillis(200);
        RecordingListener listener = new RecordingListener();
        Bulkhead bulkhead = bulkhead("timeout", BulkheadConfig.custom().maxConcurrentCalls(1).maxWaitDuration(maxWait));
        bulkhead.addListener(listener);
        bulkhead.acquirePermit();
        Submitters.Started<Outcome> caller = callers.call(() -> attempt(bulkhead));
        Outcome outcome = caller.result().get(30, TimeUnit.SECONDS);
        assertThat(outcome.elapsed()).isGreaterThanOrEqualTo(maxWait).isLessThan(maxWait.plus(TOLERANCE));
        assertThat(outcome.rejection()).isNotNull();
        assertThat(outcome.rejection().getReason()).isEqualTo(RejectionReason.WAIT_TIMED_OUT);
        assertThat(outcome.rejection().getBulkheadName()).isEqualTo("timeout");
        assertThat(outcome.rejection()).hasMessageContaining("'timeout'").hasMessageContaining("wait-timed-out");
        assertThat(outcome.interruptedAfter()).isFalse();
        assertThat(bulkhead.getRejectedCount(RejectionReason.WAIT_TIMED_OUT)).isEqualTo(1);
        assertThat(bulkhead.getRejectedCount()).isEqualTo(1);
        assertThat(listener.rejected(RejectionReason.WAIT_TIMED_OUT)).isEqualTo(1);
        assertThat(bulkhead.getWaitingCount()).isZero();
        assertThat(bulkhead.getActiveCount()).isEqualTo(1);
        bulkhead.onComplete(0);
        assertThat(bulkhead.getAvailablePermits()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void interruptWhileWaitingRejectsWithInterruptedAndKeepsTheFlag(Submitters callers) throws Exception {
        Bulkhead bulkhead = bulkhead("interrupt", BulkheadConfig.custom().maxConcurrentCalls(1));
        bulkhead.acquirePermit();
        Submitters.Started<Outcome> caller = callers.call(() -> attempt(bulkhead));
        eventually().until(() -> bulkhead.getWaitingCount() == 1 && isParked(caller.thread()));
        caller.thread().interrupt();
        Outcome outcome = caller.result().get(30, TimeUnit.SECONDS);
        assertThat(outcome.rejection()).isNotNull();
        assertThat(outcome.rejection().getReason()).isEqualTo(RejectionReason.INTERRUPTED);
        assertThat(outcome.rejection()).hasMessageContaining("'interrupt'").hasMessageContaining("interrupted");
        assertThat(outcome.interruptedAfter()).as("interrupt flag restored").isTrue();
        assertThat(bulkhead.getRejectedCount(RejectionReason.INTERRUPTED)).isEqualTo(1);
        assertThat(bulkhead.getWaitingCount()).isZero();
        bulkhead.onComplete(0);
        assertThat(bulkhead.getActiveCount()).as("the permit was not handed to the departed caller").isZero();
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void interruptedCallerIsRejectedAtOnceWhenItWouldHaveToWait(Submitters callers) throws Exception {
        Bulkhead bulkhead = bulkhead("pre-interrupted", BulkheadConfig.custom().maxConcurrentCalls(1));
        bulkhead.acquirePermit();
        Outcome outcome = callers.call(() -> {
            Thread.currentThread().interrupt();
            return attempt(bulkhead);
        }).result().get(30, TimeUnit.SECONDS);
        assertThat(outcome.rejection()).isNotNull();
        assertThat(outcome.rejection().getReason()).isEqualTo(RejectionReason.INTERRUPTED);
        assertThat(outcome.interruptedAfter()).isTrue();
        assertThat(outcome.elapsed()).isLessThan(TOLERANCE);
        assertThat(bulkhead.getWaitingCount()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void interruptedCallerStillTakesAFreePermitAndKeepsTheFlag(Submitters callers) throws Exception {
        Bulkhead bulkhead = bulkhead("free", BulkheadConfig.custom().maxConcurrentCalls(1));
        Outcome outcome = callers.call(() -> {
            Thread.currentThread().interrupt();
            return attempt(bulkhead);
        }).result().get(30, TimeUnit.SECONDS);
        assertThat(outcome.rejection()).isNull();
        assertThat(outcome.interruptedAfter()).isTrue();
        assertThat(bulkhead.getActiveCount()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void fullQueueRejectsParkingCallersAtOnce(Submitters callers) throws Exception {
        Bulkhead bulkhead = bulkhead("sync-full", BulkheadConfig.custom().maxConcurrentCalls(1).queueCapacity(1));
        bulkhead.acquirePermit();
        Submitters.Started<Outcome> waiter = callers.call(() -> attempt(bulkhead));
        eventually().until(() -> bulkhead.getWaitingCount() == 1);
        Outcome outcome = callers.call(() -> attempt(bulkhead)).result().get(30, TimeUnit.SECONDS);
        assertThat(outcome.rejection()).isNotNull();
        assertThat(outcome.rejection().getReason()).isEqualTo(RejectionReason.QUEUE_FULL);
        assertThat(outcome.rejection()).hasMessageContaining("'sync-full'").hasMessageContaining("queue-full");
        assertThat(outcome.elapsed()).isLessThan(TOLERANCE);
        assertThat(bulkhead.getRejectedCount(RejectionReason.QUEUE_FULL)).isEqualTo(1);
        bulkhead.onComplete(0);
        assertThat(waiter.result().get(30, TimeUnit.SECONDS).rejection()).isNull();
        bulkhead.onComplete(0);
        assertThat(bulkhead.getActiveCount()).isZero();
    }

    @Test
    void parkedVirtualThreadsDoNotHoldOnToCarriers() throws Exception {
        int callers = 2_000;
        Bulkhead bulkhead = bulkhead("unpinned", BulkheadConfig.custom().maxConcurrentCalls(1));
        bulkhead.acquirePermit();
        AtomicInteger done = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                bulkhead.acquirePermit();
                done.incrementAndGet();
                bulkhead.onComplete(0);
            }));
        }
        // Far more virtual threads wait than there are carriers: they must have unmounted.
        eventually().until(() -> bulkhead.getWaitingCount() == callers);
        assertThat(Thread.ofVirtual().start(() -> {
        }).join(TOLERANCE)).as("a new virtual thread still gets a carrier").isTrue();
        bulkhead.onComplete(0);
        for (Thread thread : threads) {
            assertThat(thread.join(Duration.ofSeconds(30))).isTrue();
        }
        assertThat(done).hasValue(callers);
        assertThat(bulkhead.getActiveCount()).isZero();
        assertThat(bulkhead.getCompletedCount()).isEqualTo(callers + 1);
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void shorterMaxWaitAppliesToCallersAlreadyWaiting(Submitters callers) throws Exception {
        Bulkhead bulkhead = bulkhead("rewait", BulkheadConfig.custom().maxConcurrentCalls(1).maxWaitDuration(Duration.ofHours(1)));
        bulkhead.acquirePermit();
        Submitters.Started<Outcome> caller = callers.call(() -> attempt(bulkhead));
        eventually().until(() -> bulkhead.getWaitingCount() == 1);
        bulkhead.changeMaxWaitDuration(Duration.ofMillis(100));
        assertThat(bulkhead.getConfig().getMaxWaitDuration()).isEqualTo(Duration.ofMillis(100));
        Outcome outcome = caller.result().get(30, TimeUnit.SECONDS);
        assertThat(outcome.rejection()).isNotNull();
        assertThat(outcome.rejection().getReason()).isEqualTo(RejectionReason.WAIT_TIMED_OUT);
        assertThat(outcome.elapsed()).isGreaterThanOrEqualTo(Duration.ofMillis(100)).isLessThan(TOLERANCE);
        assertThat(bulkhead.getRejectedCount(RejectionReason.WAIT_TIMED_OUT)).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Submitters.class)
    void longerMaxWaitAppliesToCallersAlreadyWaiting(Submitters callers) throws Exception {
        Bulkhead bulkhead = bulkhead("longer", BulkheadConfig.custom().maxConcurrentCalls(1).maxWaitDuration(Duration.ofMillis(200)));
        bulkhead.acquirePermit();
        Submitters.Started<Outcome> caller = callers.call(() -> attempt(bulkhead));
        eventually().until(() -> bulkhead.getWaitingCount() == 1);
        RecordingWaiter waiter = new RecordingWaiter();
        assertThat(bulkhead.acquireOrEnqueue(waiter)).isFalse();
        bulkhead.changeMaxWaitDuration(Duration.ofHours(1));
        // Three times the old max wait: both would have been rejected by then.
        eventually().during(Duration.ofMillis(600))
            .until(() -> !caller.result().isDone() && waiter.events.isEmpty() && bulkhead.getWaitingCount() == 2);
        bulkhead.onComplete(0);
        assertThat(caller.result().get(30, TimeUnit.SECONDS).rejection()).isNull();
        bulkhead.onComplete(0);
        assertThat(waiter.events).containsExactly("permit");
        bulkhead.onComplete(0);
        assertThat(bulkhead.getRejectedCount()).isZero();
        assertThat(bulkhead.getActiveCount()).isZero();
    }

    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void concurrentChangesOfTheCeilingAndTheMaxWaitBothTakeEffect(boolean adaptive) throws Exception {
        BulkheadConfig.Builder config = BulkheadConfig.custom().maxConcurrentCalls(10).maxWaitDuration(Duration.ofMillis(1));
        if (adaptive) {
            config.adaptive(AdaptiveLimitConfig.custom().initialLimit(5).minLimit(1).build());
        }
        Bulkhead bulkhead = bulkhead("both", config);
        int rounds = 5_000;
        CyclicBarrier start = new CyclicBarrier(2);
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            for (int round = 1; round <= rounds; round++) {
                int ceiling = 10 + round;
                Duration maxWait = Duration.ofMillis(1 + round);
                Future<?> ceilingChange = threads.submit(() -> {
                    start.await();
                    bulkhead.changeLimit(ceiling);
                    return null;
                });
                Future<?> maxWaitChange = threads.submit(() -> {
                    start.await();
                    bulkhead.changeMaxWaitDuration(maxWait);
                    return null;
                });
                ceilingChange.get(10, TimeUnit.SECONDS);
                maxWaitChange.get(10, TimeUnit.SECONDS);
                // Either change may read the configuration before the other wrote it; neither may be lost.
                assertThat(bulkhead.getCeiling()).as("ceiling after round %d", round).isEqualTo(ceiling);
                assertThat(bulkhead.getConfig().getMaxWaitDuration()).as("max wait after round %d", round)
                    .isEqualTo(maxWait);
            }
        }
        if (adaptive) {
            assertThat(bulkhead.getConfig().getAdaptive().getMaxLimit()).isEqualTo(10 + rounds);
        }
        else {
            assertThat(bulkhead.getLimit()).isEqualTo(10 + rounds);
        }
    }

    @Test
    void waiterThatTookAFreePermitIsNeverCalledBackNorWithdrawn() {
        Bulkhead bulkhead = bulkhead("waiters", BulkheadConfig.custom().maxConcurrentCalls(1));
        RecordingWaiter immediate = new RecordingWaiter();
        assertThat(bulkhead.acquireOrEnqueue(immediate)).isTrue();
        assertThat(bulkhead.withdraw(immediate)).as("never queued").isFalse();
        assertThat(bulkhead.getWaitingCount()).isZero();
        assertThat(bulkhead.getActiveCount()).isEqualTo(1);
        bulkhead.onComplete(0);
        assertThat(immediate.events).isEmpty();
        assertThat(bulkhead.tryAcquirePermit()).as("fast path still works").isTrue();
    }

    @Test
    void queuedWaiterGetsExactlyOneCallbackUnlessWithdrawn() {
        Bulkhead bulkhead = bulkhead("waiters", BulkheadConfig.custom().maxConcurrentCalls(1));
        bulkhead.acquirePermit();
        RecordingWaiter withdrawn = new RecordingWaiter();
        RecordingWaiter granted = new RecordingWaiter();
        assertThat(bulkhead.acquireOrEnqueue(withdrawn)).isFalse();
        assertThat(bulkhead.acquireOrEnqueue(granted)).isFalse();
        assertThat(bulkhead.getWaitingCount()).isEqualTo(2);
        assertThat(bulkhead.withdraw(withdrawn)).isTrue();
        assertThat(bulkhead.withdraw(withdrawn)).isFalse();
        assertThat(bulkhead.getWaitingCount()).isEqualTo(1);
        bulkhead.onComplete(0);
        assertThat(withdrawn.events).isEmpty();
        assertThat(granted.events).containsExactly("permit");
        assertThat(bulkhead.withdraw(granted)).as("already granted").isFalse();
        assertThat(bulkhead.getActiveCount()).isEqualTo(1);
        bulkhead.onComplete(0);
        assertThat(granted.events).containsExactly("permit");
        assertThat(bulkhead.getActiveCount()).isZero();
        assertThat(bulkhead.getWaitingCount()).isZero();
    }

    @Test
    void queuedWaiterThatWaitsTooLongIsRejectedOnce() {
        Bulkhead bulkhead = bulkhead("expiry", BulkheadConfig.custom().maxConcurrentCalls(1).maxWaitDuration(Duration.ofMillis(50)));
        bulkhead.acquirePermit();
        RecordingWaiter waiter = new RecordingWaiter();
        assertThat(bulkhead.acquireOrEnqueue(waiter)).isFalse();
        eventually().until(() -> !waiter.events.isEmpty());
        assertThat(bulkhead.getWaitingCount()).isZero();
        bulkhead.onComplete(0);
        assertThat(waiter.events).containsExactly("reject wait-timed-out");
        assertThat(bulkhead.withdraw(waiter)).isFalse();
        assertThat(bulkhead.getActiveCount()).isZero();
    }

    @Test
    void withdrawAllTakesMatchingWaitersInQueueOrder() {
        Bulkhead bulkhead = bulkhead("withdraw-all", BulkheadConfig.custom().maxConcurrentCalls(1));
        bulkhead.acquirePermit();
        List<RecordingWaiter> waiters = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            RecordingWaiter waiter = new RecordingWaiter();
            waiters.add(waiter);
            bulkhead.acquireOrEnqueue(waiter);
        }
        List<Waiter> odd = bulkhead.permits().withdrawAll((waiter) -> waiters.indexOf(waiter) % 2 == 1);
        assertThat(odd).containsExactly(waiters.get(1), waiters.get(3), waiters.get(5));
        assertThat(bulkhead.getWaitingCount()).isEqualTo(3);
        for (int i = 0; i < 4; i++) {
            bulkhead.onComplete(0);
        }
        assertThat(waiters).extracting((waiter) -> waiter.events.size()).containsExactly(1, 0, 1, 0, 1, 0);
        assertThat(bulkhead.getActiveCount()).isZero();
    }

    @Test
    void aLargerLimitIsReportedBeforeAnyoneCanUseTheNewPermits() {
        Bulkhead bulkhead = bulkhead("growing", BulkheadConfig.custom().maxConcurrentCalls(1));
        assertThat(bulkhead.tryAcquirePermit()).isTrue();
        RecordingWaiter waiter = new RecordingWaiter();
        assertThat(bulkhead.acquireOrEnqueue(waiter)).isFalse();
        List<String> seenByListener = new ArrayList<>();
        bulkhead.addListener(new BulkheadListener() {
            @Override
            public void onLimitChanged(Bulkhead changed, int oldLimit, int newLimit) {
                // What a connection pool sized from the limit must see: nobody holds a new permit yet.
                seenByListener.add(oldLimit + " -> " + newLimit + ": free " + changed.tryAcquirePermit()
                        + ", waiter " + waiter.events);
            }
        });

        bulkhead.changeLimit(3);

        assertThat(seenByListener).containsExactly("1 -> 3: free false, waiter []");
        assertThat(waiter.events).containsExactly("permit");
        assertThat(bulkhead.getActiveCount()).isEqualTo(2);
        assertThat(bulkhead.tryAcquirePermit()).isTrue();
        bulkhead.changeLimit(1);
        assertThat(seenByListener).containsExactly("1 -> 3: free false, waiter []", "3 -> 1: free false, waiter [permit]");
    }

    @Test
    void theLimitOfAStaticBulkheadIsItsCeiling() {
        Bulkhead bulkhead = bulkhead("static", BulkheadConfig.custom().maxConcurrentCalls(3));
        bulkhead.changeLimit(7);
        assertThat(bulkhead.getCeiling()).isEqualTo(7);
        assertThat(bulkhead.getLimit()).isEqualTo(7);
    }

    @Test
    void limitChangesAreReportedOnce() {
        RecordingListener listener = new RecordingListener();
        Bulkhead bulkhead = bulkhead("limits", BulkheadConfig.custom().maxConcurrentCalls(3));
        bulkhead.addListener(listener);
        bulkhead.changeLimit(5);
        bulkhead.changeLimit(5);
        bulkhead.changeLimit(2);
        assertThat(listener.events).extracting(RecordingListener.Event::type).containsExactly("limit 3 -> 5", "limit 5 -> 2");
    }

    @Test
    void aRemovedListenerHearsNothingMore() {
        RecordingListener listener = new RecordingListener();
        Bulkhead bulkhead = bulkhead("limits", BulkheadConfig.custom().maxConcurrentCalls(3));
        bulkhead.addListener(listener);
        bulkhead.removeListener(listener);
        bulkhead.changeLimit(4);
        bulkhead.tryAcquirePermit();
        assertThat(listener.events).isEmpty();
    }

    @Test
    void aChangedLimitIsTheNumberOfFreePermits() {
        Bulkhead bulkhead = bulkhead("limits", BulkheadConfig.custom().maxConcurrentCalls(3));
        bulkhead.changeLimit(4);
        assertThat(bulkhead.getLimit()).isEqualTo(4);
        assertThat(bulkhead.getAvailablePermits()).isEqualTo(4);
    }

    @Test
    void permitsReleasedWhileOverTheLoweredLimitAreNotHandedOn() throws Exception {
        Bulkhead bulkhead = bulkhead("over", BulkheadConfig.custom().maxConcurrentCalls(3));
        for (int i = 0; i < 3; i++) {
            bulkhead.acquirePermit();
        }
        RecordingWaiter waiter = new RecordingWaiter();
        assertThat(bulkhead.acquireOrEnqueue(waiter)).isFalse();
        bulkhead.changeLimit(1);
        bulkhead.onComplete(0);
        bulkhead.onComplete(0);
        assertThat(waiter.events).isEmpty();
        assertThat(bulkhead.getActiveCount()).isEqualTo(1);
        bulkhead.onComplete(0);
        assertThat(waiter.events).containsExactly("permit");
        assertThat(bulkhead.getActiveCount()).isEqualTo(1);
        bulkhead.onComplete(0);
        assertThat(bulkhead.getActiveCount()).isZero();
    }

    @Test
    void nullListenerOrWaiterIsRefusedWithAMessage() {
        Bulkhead bulkhead = bulkhead("listeners", BulkheadConfig.custom());
        assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> bulkhead.addListener(null))
            .withMessageContaining("listener");
        assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> bulkhead.acquireOrEnqueue(null))
            .withMessageContaining("waiter");
    }

    private static Bulkhead bulkhead(String name, BulkheadConfig.Builder config) {
        return new Bulkhead(name, config.build());
    }

    private static boolean isParked(Thread thread) {
        Thread.State state = thread.getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
    }

    /** Calls {@code acquirePermit()} and reports how it ended, releasing a permit it got. */
    private static Outcome attempt(Bulkhead bulkhead) {
        long start = System.nanoTime();
        try {
            bulkhead.acquirePermit();
            return new Outcome(null, Duration.ofNanos(System.nanoTime() - start), Thread.currentThread().isInterrupted());
        }
        catch (BulkheadRejectedException ex) {
            return new Outcome(ex, Duration.ofNanos(System.nanoTime() - start), Thread.currentThread().isInterrupted());
        }
    }

    private record Outcome(BulkheadRejectedException rejection, Duration elapsed, boolean interruptedAfter) {
    }

    /** A thread-less waiter that records its callbacks. */
    private static final class RecordingWaiter extends Waiter {

        final Queue<String> events = new ConcurrentLinkedQueue<>();

        @Override
        protected boolean onPermit(long waitNanos) {
            this.events.add("permit");
            return true;
        }

        @Override
        protected void onReject(BulkheadRejectedException rejection) {
            this.events.add("reject " + rejection.getReason().tag());
        }
    }
}
