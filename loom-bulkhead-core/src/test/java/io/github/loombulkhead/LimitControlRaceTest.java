package io.github.loombulkhead;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.LimitAlgorithm;
import io.github.loombulkhead.limit.Outcome;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Interleavings of limit changes, forced deterministically: a thread is paused inside the algorithm, or the control's
 * lock is held while another thread queues for it.
 */
class LimitControlRaceTest {

    private static final long FAST_RTT = 1_000;

    @Test
    void aRiseReadBeforeACutIsNotAppliedAfterIt() throws Exception {
        Bulkhead bulkhead = new Bulkhead("b", BulkheadConfig.custom()
            .maxConcurrentCalls(1000)
            .maxWaitDuration(Duration.ofSeconds(30))
            .queueCapacity(1000)
            .adaptive(AdaptiveLimitConfig.custom().initialLimit(50).build())
            .build());
        Controlled algorithm = new Controlled();
        field(LimitControl.class, "algorithm").set(control(bulkhead), algorithm);
        List<String> changes = new CopyOnWriteArrayList<>();
        bulkhead.addListener(new BulkheadListener() {
            @Override
            public void onLimitChanged(Bulkhead changed, int oldLimit, int newLimit) {
                changes.add(oldLimit + "->" + newLimit);
            }
        });
        for (int i = 0; i < 50; i++) {
            assertThat(bulkhead.tryAcquirePermit()).isTrue();
        }
        AtomicInteger granted = new AtomicInteger();
        for (int i = 0; i < 40; i++) {
            bulkhead.acquireOrEnqueue(new Waiter() {
                @Override
                protected boolean onPermit(long waitNanos) {
                    granted.incrementAndGet();
                    return true;
                }

                @Override
                protected void onReject(BulkheadRejectedException rejection) {
                }
            });
        }
        // A fast call (its rise applies at once) reads the proposal 100 and stops right there.
        algorithm.limit = 100;
        Thread stale = Thread.ofVirtual()
            .name(Controlled.PAUSED)
            .start(() -> bulkhead.onComplete(FAST_RTT, FAST_RTT, 50, Outcome.SUCCESS));
        assertThat(algorithm.read.await(10, TimeUnit.SECONDS)).isTrue();
        // Meanwhile the algorithm cuts to 20, and another call applies the cut.
        algorithm.limit = 20;
        bulkhead.onComplete(FAST_RTT, FAST_RTT, 50, Outcome.DROPPED);
        assertThat(bulkhead.getLimit()).isEqualTo(20);
        int grantedAfterCut = granted.get();
        algorithm.resume.countDown();
        stale.join(Duration.ofSeconds(10));
        assertThat(bulkhead.getLimit()).isEqualTo(20);
        assertThat(changes).containsExactly("50->20");
        assertThat(granted.get()).as("no waiter started on the older rise").isEqualTo(grantedAfterCut);
    }

    @Test
    void aLeaseTakenWhileACeilingChangeWaitsIsNotOverwritten() throws Exception {
        Bulkhead bulkhead = new Bulkhead("b", BulkheadConfig.custom().maxConcurrentCalls(10).build());
        ReentrantLock lock = (ReentrantLock) field(LimitControl.class, "lock").get(control(bulkhead));
        Thread changer;
        Thread leasing;
        lock.lock();
        try {
            changer = Thread.ofVirtual().start(() -> bulkhead.changeLimit(50));
            while (!lock.hasQueuedThread(changer)) {
                Thread.onSpinWait();
            }
            // The lease comes while the ceiling change waits for the lock: it waits too, or (unguarded) is taken now.
            leasing = Thread.ofVirtual().start(() -> ExternalLimit.attach(bulkhead, new ExternalLimit.Owner() {
                @Override
                public void onQueued(Bulkhead queued) {
                }

                @Override
                public void onMaxConcurrentCallsChanged(Bulkhead changed, int maxConcurrentCalls) {
                }
            }));
            while (!lock.hasQueuedThread(leasing) && leasing.isAlive()) {
                Thread.onSpinWait();
            }
        }
        finally {
            lock.unlock();
        }
        assertThat(changer.join(Duration.ofSeconds(10))).isTrue();
        assertThat(leasing.join(Duration.ofSeconds(10))).isTrue();
        assertThat(bulkhead.isLimitLeased()).isTrue();
        assertThat(bulkhead.getLimit()).as("the permits the lease's owner holds, not the new ceiling").isZero();
        assertThat(bulkhead.getConfig().getMaxConcurrentCalls()).isEqualTo(50);
    }

    @Test
    void aProposalSkippedWhileASampleOfTheReplacedAlgorithmHeldTheLockIsStillApplied() throws Exception {
        for (int round = 0; round < 300; round++) {
            Bulkhead bulkhead = aimdFrom500();
            int staleSamples = 400;
            Blocking stale = new Blocking(700, staleSamples);
            field(LimitControl.class, "algorithm").set(control(bulkhead), stale);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < staleSamples; i++) {
                assertThat(bulkhead.tryAcquirePermit()).isTrue();
                threads.add(Thread.ofVirtual().start(() -> bulkhead.onComplete(FAST_RTT, FAST_RTT, 1, Outcome.SUCCESS)));
            }
            // Every stale sample has read its algorithm and waits inside it; then the ceiling change replaces it.
            assertThat(stale.entered.await(30, TimeUnit.SECONDS)).isTrue();
            bulkhead.changeLimit(1000);
            LimitAlgorithm fresh = bulkhead.getLimitAlgorithm();
            assertThat(bulkhead.tryAcquirePermit()).isTrue();
            stale.release.countDown();
            while (stale.left.get() < staleSamples / 4) {
                Thread.onSpinWait();
            }
            // While the stale samples take the lock one after the other, a call of the new algorithm drops.
            bulkhead.onComplete(FAST_RTT, FAST_RTT, 500, Outcome.DROPPED);
            for (Thread thread : threads) {
                assertThat(thread.join(Duration.ofSeconds(30))).isTrue();
            }
            assertThat(bulkhead.getLimit()).as("round %d: the new algorithm's proposal", round)
                .isEqualTo(fresh.getLimit());
        }
    }

    @Test
    void aProposalSkippedWhileARefusedCeilingChangeHeldTheLockIsStillApplied() throws Exception {
        for (int round = 0; round < 200; round++) {
            Bulkhead bulkhead = aimdFrom500();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger refused = new AtomicInteger();
            // An operator writes a ceiling below the minimum again and again: refused, it changes nothing.
            Thread operator = Thread.ofPlatform().start(() -> {
                while (!stop.get()) {
                    try {
                        bulkhead.changeLimit(1);
                    }
                    catch (IllegalArgumentException ex) {
                        refused.incrementAndGet();
                    }
                }
            });
            while (refused.get() < 10) {
                Thread.onSpinWait();
            }
            assertThat(bulkhead.tryAcquirePermit()).isTrue();
            bulkhead.onComplete(FAST_RTT, FAST_RTT, 500, Outcome.DROPPED);
            stop.set(true);
            operator.join();
            assertThat(bulkhead.getLimit()).as("round %d: the algorithm's proposal", round)
                .isEqualTo(bulkhead.getLimitAlgorithm().getLimit());
        }
    }

    /** An {@code aimd} bulkhead at 500 under a ceiling of 1,000, whose minimum limit is 5. */
    private static Bulkhead aimdFrom500() {
        return new Bulkhead("b", BulkheadConfig.custom()
            .maxConcurrentCalls(1000)
            .adaptive(AdaptiveLimitConfig.custom()
                .algorithm(AdaptiveLimitConfig.Algorithm.AIMD)
                .initialLimit(500)
                .minLimit(5)
                .build())
            .build());
    }

    private static Object control(Bulkhead bulkhead) throws ReflectiveOperationException {
        return field(Bulkhead.class, "limits").get(bulkhead);
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }

    /** An algorithm whose proposal the test sets; the thread named {@value #PAUSED} stops after its first read. */
    private static final class Controlled implements LimitAlgorithm {

        static final String PAUSED = "paused-after-reading";

        final CountDownLatch read = new CountDownLatch(1);

        final CountDownLatch resume = new CountDownLatch(1);

        private final AtomicInteger pausedReads = new AtomicInteger();

        volatile int limit = 50;

        @Override
        public String getName() {
            return "controlled";
        }

        @Override
        public int getLimit() {
            int value = this.limit;
            if (Thread.currentThread().getName().equals(PAUSED) && this.pausedReads.getAndIncrement() == 0) {
                this.read.countDown();
                try {
                    this.resume.await(10, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            return value;
        }

        @Override
        public int onSample(long startNanos, long rttNanos, int inflight, Outcome outcome) {
            return this.limit;
        }
    }

    /** Proposes a fixed limit; every sample waits inside it until released. */
    private static final class Blocking implements LimitAlgorithm {

        final CountDownLatch entered;

        final CountDownLatch release = new CountDownLatch(1);

        final AtomicInteger left = new AtomicInteger();

        private final int limit;

        Blocking(int limit, int samples) {
            this.limit = limit;
            this.entered = new CountDownLatch(samples);
        }

        @Override
        public String getName() {
            return "blocking";
        }

        @Override
        public int getLimit() {
            return this.limit;
        }

        @Override
        public int onSample(long startNanos, long rttNanos, int inflight, Outcome outcome) {
            this.entered.countDown();
            try {
                this.release.await(30, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            this.left.incrementAndGet();
            return this.limit;
        }
    }
}
