package io.github.loombulkhead.autoconfigure.http;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.http.Callers;
import io.github.loombulkhead.http.LoopbackServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What calls held at the callee's {@code /held} show about the limits between a client and its server. */
final class HeldCalls {

    private HeldCalls() {
    }

    /**
     * Makes one call more than {@code bulkhead}'s limit, each held at {@code callee}: exactly the limit reaches
     * the callee at once (no smaller connection pool caps it) while one call waits for a permit, until released.
     */
    static void assertExactlyTheLimitReaches(LoopbackServer callee, Bulkhead bulkhead, Runnable call)
            throws InterruptedException {
        int limit = bulkhead.getLimit();
        Callers callers = Callers.start(limit + 1, call);
        await().until(() -> callee.concurrent() == limit && bulkhead.getWaitingCount() == 1);
        callee.release();
        callers.join();
        assertThat(callee.maxConcurrent()).isEqualTo(limit);
    }
}
