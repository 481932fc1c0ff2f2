package io.github.loombulkhead;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The marks a call chain leaves on its thread. */
class CallChainTest {

    private final Bulkhead callee = new Bulkhead("callee", BulkheadConfig.custom().maxConcurrentCalls(2).build());

    private final Bulkhead other = new Bulkhead("other", BulkheadConfig.custom().maxConcurrentCalls(2).build());

    @AfterEach
    void nothingLeftMarked() {
        assertThat(CallChain.holds(this.callee)).isFalse();
        assertThat(CallChain.holds(this.other)).isFalse();
    }

    @Test
    void nestedMarksAreUndoneInOrder() {
        try (CallChain.Scope outer = CallChain.enter(this.callee)) {
            try (CallChain.Scope inner = CallChain.enter(this.other)) {
                assertThat(CallChain.holds(this.callee)).isTrue();
                assertThat(CallChain.holds(this.other)).isTrue();
            }
            assertThat(CallChain.holds(this.callee)).isTrue();
            assertThat(CallChain.holds(this.other)).isFalse();
        }
    }

    @Test
    void aBulkheadAloneOnItsThreadUsesOneMarkForEveryCallAndEveryThread() throws Exception {
        CountDownLatch bothMarked = new CountDownLatch(2);
        CountDownLatch firstClosed = new CountDownLatch(1);
        CompletableFuture<CallChain.Scope> first = new CompletableFuture<>();
        CompletableFuture<Boolean> secondStillHolds = new CompletableFuture<>();
        Thread one = Thread.ofVirtual().start(() -> {
            CallChain.Scope mark = CallChain.enter(this.callee);
            bothMarked.countDown();
            await(bothMarked);
            mark.close();
            first.complete(mark);
            firstClosed.countDown();
        });
        Thread two = Thread.ofVirtual().start(() -> {
            try (CallChain.Scope mark = CallChain.enter(this.callee)) {
                bothMarked.countDown();
                await(firstClosed);
                secondStillHolds.complete(CallChain.holds(this.callee) && mark == this.callee.chainMark());
            }
        });
        assertThat(one.join(Duration.ofSeconds(10))).isTrue();
        assertThat(two.join(Duration.ofSeconds(10))).isTrue();
        // The same mark on both threads, no allocation per call; closing it on one leaves the other's chain alone.
        assertThat(first.get(0, TimeUnit.SECONDS)).isSameAs(this.callee.chainMark());
        assertThat(secondStillHolds.get(0, TimeUnit.SECONDS)).isTrue();
        try (CallChain.Scope mark = CallChain.enter(this.callee)) {
            assertThat(mark).isSameAs(this.callee.chainMark());
            try (CallChain.Scope nested = CallChain.enter(this.other)) {
                assertThat(nested).isNotSameAs(this.other.chainMark());
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
