package io.github.loombulkhead;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * One daemon platform thread shared by all bulkheads to find waiters whose wait timed out. Each
 * bulkhead keeps at most one pending check, for its oldest waiter. The thread only changes queue
 * state: expired waiters and listeners are told on a new virtual thread per batch, so a slow
 * callback of one bulkhead never delays another's timeouts. Adaptive bulkheads also time the steps
 * of their {@link io.github.loombulkhead.limit.LimitRamp} here; each step runs on a virtual thread
 * of its own, as it may start waiting calls.
 */
final class ExpiryScheduler {

    private static final ScheduledThreadPoolExecutor SCHEDULER = create();

    private static final ThreadFactory CALLBACKS = Thread.ofVirtual()
        .name("loom-bulkhead-expired")
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

    /** Runs the callbacks of one batch of expired waiters off the timer thread. */
    static void tell(Runnable callbacks) {
        CALLBACKS.newThread(callbacks).start();
    }

    /** Runs one step of an adaptive bulkhead's limit ramp off the timer thread. */
    static void step(Runnable step) {
        RAMP_STEPS.newThread(step).start();
    }
}
