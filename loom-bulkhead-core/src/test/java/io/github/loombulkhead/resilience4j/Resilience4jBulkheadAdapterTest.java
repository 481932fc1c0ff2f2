package io.github.loombulkhead.resilience4j;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.resilience4j.bulkhead.BulkheadFullException;
import io.github.resilience4j.bulkhead.event.BulkheadEvent;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class Resilience4jBulkheadAdapterTest {

    private final Bulkhead loom = new Bulkhead("callee",
            BulkheadConfig.custom().maxConcurrentCalls(2).maxWaitDuration(Duration.ofMillis(50)).build());

    private final Resilience4jBulkheadAdapter adapter = Resilience4jBulkheadAdapter.of(this.loom);

    @Test
    void callsCompletedThroughResilience4jTeachAnAdaptiveLimitNothing() {
        Bulkhead shared = new Bulkhead("shared", BulkheadConfig.custom()
            .maxConcurrentCalls(1000)
            .adaptive(AdaptiveLimitConfig.custom().initialLimit(50).build())
            .build());
        Resilience4jBulkheadAdapter adapter = Resilience4jBulkheadAdapter.of(shared);
        for (int i = 0; i < 200; i++) {
            assertThat(adapter.tryAcquirePermission()).isTrue();
            adapter.onComplete();
        }
        // A duration of 0 is not a round trip: the algorithm still knows no RTT, and counted every call completed.
        assertThat(shared.getLimitAlgorithm().getEstimates()).containsEntry("noLoadRttNanos", 0L);
        assertThat(shared.getLimit()).isEqualTo(50);
        assertThat(shared.getCompletedCount()).isEqualTo(200);
        assertThat(shared.getActiveCount()).isZero();
    }

    @Test
    void decoratedCallsShareTheLoomLimitAndReleaseTheirPermit() {
        Supplier<String> decorated = io.github.resilience4j.bulkhead.Bulkhead.decorateSupplier(this.adapter,
                () -> "active=" + this.loom.getActiveCount());
        assertThat(decorated.get()).isEqualTo("active=1");
        assertThat(this.loom.getActiveCount()).isZero();
        assertThat(this.loom.getPermittedCount()).isEqualTo(1);
        assertThat(this.loom.getCompletedCount()).isEqualTo(1);
    }

    @Test
    void fullBulkheadSurfacesAsResilience4jBulkheadFullExceptionAfterTheLoomWait() {
        this.loom.tryAcquirePermit();
        this.loom.tryAcquirePermit();
        assertThatThrownBy(this.adapter::acquirePermission).isInstanceOf(BulkheadFullException.class)
            .hasMessageContaining("callee");
        assertThat(this.loom.getRejectedCount(RejectionReason.WAIT_TIMED_OUT)).isEqualTo(1);
        assertThat(this.adapter.tryAcquirePermission()).isFalse();
        assertThat(this.adapter.getMetrics().getAvailableConcurrentCalls()).isZero();
        assertThat(this.adapter.getMetrics().getMaxAllowedConcurrentCalls()).isEqualTo(2);
    }

    @Test
    void tryAcquirePermissionWaitsLikeResilience4jsAndCountsItsRefusal() {
        List<BulkheadEvent.Type> events = new CopyOnWriteArrayList<>();
        this.adapter.getEventPublisher().onCallRejected((event) -> events.add(event.getEventType()));
        this.loom.tryAcquirePermit();
        this.loom.tryAcquirePermit();
        // resilience4j's SemaphoreBulkhead waits up to its max wait here, then refuses and says so.
        assertThat(this.adapter.tryAcquirePermission()).isFalse();
        assertThat(this.loom.getRejectedCount(RejectionReason.WAIT_TIMED_OUT)).isEqualTo(1);
        assertThat(events).containsExactly(BulkheadEvent.Type.CALL_REJECTED);
    }

    @Test
    void aCompletionStageWaitsInTheLoomQueueForAPermit() throws Exception {
        this.loom.changeMaxWaitDuration(Duration.ofSeconds(30));
        this.loom.tryAcquirePermit();
        this.loom.tryAcquirePermit();
        CompletableFuture<String> stage = CompletableFuture.supplyAsync(
                () -> this.adapter.executeCompletionStage(() -> CompletableFuture.completedFuture("second"))
                    .toCompletableFuture()
                    .join(),
                (task) -> Thread.ofVirtual().start(task));
        await().until(() -> this.loom.getWaitingCount() == 1);
        this.loom.releasePermit();
        assertThat(stage.get(10, TimeUnit.SECONDS)).isEqualTo("second");
        assertThat(this.loom.getRejectedCount()).isZero();
        assertThat(this.loom.getActiveCount()).isEqualTo(1);
    }

    @Test
    void anInterruptedTryAcquireRefusesAndKeepsTheFlag() throws Exception {
        this.loom.changeMaxWaitDuration(Duration.ofMinutes(1));
        this.loom.tryAcquirePermit();
        this.loom.tryAcquirePermit();
        CompletableFuture<Boolean> outcome = new CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            boolean acquired = this.adapter.tryAcquirePermission();
            outcome.complete(!acquired && Thread.currentThread().isInterrupted());
        });
        await().until(() -> this.loom.getWaitingCount() == 1);
        waiter.interrupt();
        assertThat(outcome.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(this.loom.getWaitingCount()).isZero();
    }

    @Test
    void aMaxWaitBeyondResilience4jsRangeReadsAsTheLongestItTakes() {
        this.loom.changeMaxWaitDuration(Duration.ofSeconds(Long.MAX_VALUE));
        assertThat(this.adapter.getBulkheadConfig().getMaxWaitDuration()).isEqualTo(Duration.ofMillis(Long.MAX_VALUE));
    }

    @Test
    void interruptedWaitKeepsTheFlagAndNamesTheReason() throws Exception {
        this.loom.changeMaxWaitDuration(Duration.ofMinutes(1));
        this.loom.tryAcquirePermit();
        this.loom.tryAcquirePermit();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        CountDownLatch flagSeen = new CountDownLatch(1);
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                this.adapter.acquirePermission();
                outcome.complete(null);
            }
            catch (RuntimeException ex) {
                outcome.complete(ex);
                if (Thread.currentThread().isInterrupted()) {
                    flagSeen.countDown();
                }
            }
        });
        org.awaitility.Awaitility.await().until(() -> this.loom.getWaitingCount() == 1);
        waiter.interrupt();
        assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(BulkheadRejectedException.class,
                (ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.INTERRUPTED));
        assertThat(flagSeen.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(this.loom.getWaitingCount()).isZero();
    }

    @Test
    void changeConfigAppliesLimitAndMaxWaitWithoutBlocking() {
        this.loom.tryAcquirePermit();
        this.loom.tryAcquirePermit();
        this.adapter.changeConfig(io.github.resilience4j.bulkhead.BulkheadConfig.custom()
            .maxConcurrentCalls(1)
            .maxWaitDuration(Duration.ofSeconds(3))
            .build());
        assertThat(this.loom.getLimit()).isEqualTo(1);
        assertThat(this.loom.getConfig().getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(3));
        assertThat(this.adapter.getBulkheadConfig().getMaxConcurrentCalls()).isEqualTo(1);
        assertThat(this.adapter.getBulkheadConfig().isFairCallHandlingEnabled()).isTrue();
    }

    @Test
    void aChangeConfigThatKeepsTheLimitKeepsWhatAnAdaptiveLimitLearned() {
        Bulkhead adaptive = new Bulkhead("r4j-learned", BulkheadConfig.custom()
            .maxConcurrentCalls(50)
            .adaptive(AdaptiveLimitConfig.custom().initialLimit(10).minLimit(2).build())
            .build());
        long rtt = TimeUnit.MILLISECONDS.toNanos(5);
        for (int round = 0; round < 5; round++) {
            int limit = adaptive.getLimit();
            for (int i = 0; i < limit; i++) {
                assertThat(adaptive.tryAcquirePermit()).isTrue();
            }
            for (int i = 0; i < limit; i++) {
                // Started 10 ms to 1 ms ago, each answered in 5 ms: their answers span a round trip, however fast
                // this loop runs, so every round closes a window.
                long started = TimeUnit.MILLISECONDS.toNanos(10 - i % 10);
                adaptive.onComplete(started, rtt, limit, io.github.loombulkhead.limit.Outcome.SUCCESS);
            }
        }
        assertThat(adaptive.getLimitAlgorithm().getEstimates()).containsEntry("noLoadRttNanos", rtt);
        var algorithm = adaptive.getLimitAlgorithm();
        Resilience4jBulkheadAdapter adapter = Resilience4jBulkheadAdapter.of(adaptive);

        adapter.changeConfig(io.github.resilience4j.bulkhead.BulkheadConfig.custom()
            .maxConcurrentCalls(50)
            .maxWaitDuration(Duration.ofSeconds(7))
            .build());

        assertThat(adaptive.getConfig().getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(7));
        assertThat(adaptive.getLimitAlgorithm()).as("the algorithm, not restarted").isSameAs(algorithm);
        assertThat(adaptive.getLimitAlgorithm().getEstimates()).containsEntry("noLoadRttNanos", rtt);
    }

    @Test
    void aRefusedChangeConfigChangesNothing() {
        Bulkhead adaptive = new Bulkhead("r4j-adaptive", BulkheadConfig.custom()
            .maxConcurrentCalls(50)
            .maxWaitDuration(Duration.ofSeconds(30))
            .adaptive(AdaptiveLimitConfig.custom().initialLimit(10).minLimit(5).build())
            .build());
        Resilience4jBulkheadAdapter adapter = Resilience4jBulkheadAdapter.of(adaptive);

        assertThatThrownBy(() -> adapter.changeConfig(io.github.resilience4j.bulkhead.BulkheadConfig.custom()
            .maxConcurrentCalls(2)
            .maxWaitDuration(Duration.ZERO)
            .build())).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("minLimit");

        assertThat(adaptive.getCeiling()).isEqualTo(50);
        assertThat(adaptive.getConfig().getMaxWaitDuration()).as("max wait after a refused change")
            .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void publishesResilience4jEventsForLoomCalls() {
        List<BulkheadEvent.Type> events = new CopyOnWriteArrayList<>();
        this.adapter.getEventPublisher()
            .onCallPermitted((event) -> events.add(event.getEventType()))
            .onCallRejected((event) -> events.add(event.getEventType()))
            .onCallFinished((event) -> events.add(event.getEventType()));
        this.adapter.executeSupplier(() -> "ok");
        this.loom.tryAcquirePermit();
        this.loom.tryAcquirePermit();
        assertThatThrownBy(() -> this.adapter.executeSupplier(() -> "never")).isInstanceOf(BulkheadFullException.class);
        assertThat(events).containsExactly(BulkheadEvent.Type.CALL_PERMITTED, BulkheadEvent.Type.CALL_FINISHED,
                BulkheadEvent.Type.CALL_PERMITTED, BulkheadEvent.Type.CALL_PERMITTED, BulkheadEvent.Type.CALL_REJECTED);
    }

    @Test
    void adaptersMadePerUseShareOneListenerAndAreNotKeptByTheBulkhead() {
        List<WeakReference<Resilience4jBulkheadAdapter>> made = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            Resilience4jBulkheadAdapter adapter = Resilience4jBulkheadAdapter.of(this.loom, Map.of("use", "" + i));
            adapter.executeSupplier(() -> "ok");
            made.add(new WeakReference<>(adapter));
        }
        List<String> events = new CopyOnWriteArrayList<>();
        Resilience4jBulkheadAdapter.of(this.loom)
            .getEventPublisher()
            .onCallPermitted((event) -> events.add("permitted " + event.getBulkheadName()))
            .onCallFinished((event) -> events.add("finished " + event.getBulkheadName()));

        this.adapter.executeSupplier(() -> "ok");

        // One event per call, seen through any adapter of the bulkhead: one listener feeds them all.
        assertThat(events).containsExactly("permitted callee", "finished callee");
        // The bulkhead, still in use, does not keep the adapters made for single uses.
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            System.gc();
            return made.stream().allMatch((reference) -> reference.get() == null);
        });
        assertThat(this.loom.getPermittedCount()).isEqualTo(1_001);
    }
}
