package io.github.loombulkhead;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A listener that throws must not leak a permit, lose a task or keep other listeners from hearing. */
class ThrowingListenerTest {

    @Test
    void everyTaskIsAccountedForAndEveryPermitComesBackWhenAListenerThrows() throws Exception {
        AtomicInteger heard = new AtomicInteger();
        BulkheadListener throwing = new BulkheadListener() {
            @Override
            public void onPermitted(Bulkhead bulkhead, long waitNanos) {
                throw new IllegalStateException("boom on permit");
            }

            @Override
            public void onRejected(Bulkhead bulkhead, RejectionReason reason, long waitNanos) {
                throw new IllegalStateException("boom on reject");
            }

            @Override
            public void onCompleted(Bulkhead bulkhead, long executionNanos) {
                throw new IllegalStateException("boom on complete");
            }
        };
        BulkheadListener counting = new BulkheadListener() {
            @Override
            public void onCompleted(Bulkhead bulkhead, long executionNanos) {
                heard.incrementAndGet();
            }
        };
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("throwing-listener")
            .maxConcurrentCalls(2)
            .queueCapacity(100)
            .maxWaitDuration(Duration.ofSeconds(30))
            .build()) {
            executor.getBulkhead().addListener(throwing);
            executor.getBulkhead().addListener(counting);
            List<Future<Integer>> futures = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                int n = i;
                futures.add(executor.submit(() -> n));
            }
            for (int i = 0; i < 50; i++) {
                assertThat(futures.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(i);
            }
            Bulkhead bulkhead = executor.getBulkhead();
            // A completion is counted before listeners hear of it: wait for the last listener call too.
            Awaits.eventually().until(() -> bulkhead.getCompletedCount() == 50 && heard.get() >= 50);
            assertThat(heard.get()).isEqualTo(50);
            assertThat(bulkhead.getActiveCount()).isZero();
            assertThat(bulkhead.getWaitingCount()).isZero();
            assertThat(bulkhead.getPermittedCount()).isEqualTo(50);
        }
    }

    @Test
    void aRejectionStillReachesTheCallerWhenAListenerThrows() {
        Bulkhead bulkhead = new Bulkhead("throwing-reject",
                BulkheadConfig.custom().maxConcurrentCalls(1).queueCapacity(0).build());
        bulkhead.addListener(new BulkheadListener() {
            @Override
            public void onRejected(Bulkhead b, RejectionReason reason, long waitNanos) {
                throw new IllegalStateException("boom");
            }
        });
        assertThat(bulkhead.tryAcquirePermit()).isTrue();
        assertThatThrownBy(bulkhead::acquirePermit).isInstanceOfSatisfying(BulkheadRejectedException.class,
                (ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.QUEUE_FULL));
        assertThat(bulkhead.getRejectedCount(RejectionReason.QUEUE_FULL)).isEqualTo(1);
        bulkhead.releasePermit();
        assertThat(bulkhead.getAvailablePermits()).isEqualTo(1);
    }
}
