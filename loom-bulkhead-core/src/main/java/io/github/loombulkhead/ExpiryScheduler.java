package io.github.loombulkhead;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * One daemon platform thread shared by all bulkheads to find waiters whose wait timed out. Each
 * bulkhead keeps at most one pending check, for its oldest waiter. The thread only changes queue
 * state: the rejections of a batch of expired waiters are counted (and listeners told) on a new
 * virtual thread, and each waiter is told on one of its own, so a slow callback (a caller's
 * fallback on a rejected future) never delays another waiter's timeout, of this bulkhead or another. Adaptive bulkheads also time the steps
 * of their {@link io.github.loombulkhead.limit.LimitRamp} here; each step runs on a virtual thread
 * of its own, as it may start waiting calls.
 */
final class ExpiryScheduler {

    private static final ScheduledThreadPoolExecutor SCHEDULER = create();

    private static final ThreadFactory CALLBACKS = Thread.ofVirtual()
        .name("loom-bulkhead-rejected")
        .inheritInheritableThreadLocals(false)
        .factory();

    private static final ThreadFactory RAMP_STEPS = Thread.ofVirtual()
        .name("loom-bulkhead-limit-ramp")
        .inheritInheritableThreadLocals(false)
        .factory();

    private ExpiryScheduler() {
    }

    private static ScheduledThreadPoolExecutor create() {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().name("loom-bulkhead-expiry").daemon(true).inheritInheritableThreadLocals(false)
                    .factory());
        scheduler.setRemoveOnCancelPolicy(true);
        return scheduler;
    }

    static ScheduledFuture<?> schedule(Runnable check, long delayNanos) {
        return SCHEDULER.schedule(check, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }

    /** Runs rejection callbacks off the timer thread, and off the thread that rejected a waiter. */
    static void tell(Runnable callbacks) {
        CALLBACKS.newThread(callbacks).start();
    }

    /** Runs one step of an adaptive bulkhead's limit ramp off the timer thread. */
    static void step(Runnable step) {
        RAMP_STEPS.newThread(step).start();
    }
}
