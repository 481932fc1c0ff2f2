package io.github.loombulkhead;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One daemon platform thread shared by all bulkheads to reject waiters whose wait timed out.
 * Each bulkhead keeps at most one pending check, for its oldest waiter.
 */
final class ExpiryScheduler {

    private static final ScheduledThreadPoolExecutor SCHEDULER = create();

    private ExpiryScheduler() {
    }

    private static ScheduledThreadPoolExecutor create() {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().name("loom-bulkhead-expiry").daemon(true).factory());
        scheduler.setRemoveOnCancelPolicy(true);
        return scheduler;
    }

    static ScheduledFuture<?> schedule(Runnable check, long delayNanos) {
        return SCHEDULER.schedule(check, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }
}
