package io.github.loombulkhead;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.loombulkhead.limit.CallerPauses;

/**
 * One daemon platform thread that finds the pauses of this process for every adaptive bulkhead: it wakes every
 * {@value #INTERVAL_MILLIS} ms, and the time it wakes late by is a span in which the process ran nothing (a
 * stop-the-world collection, a long safepoint, the process descheduled). Started when an adaptive bulkhead's call first
 * succeeds; a static bulkhead never starts it. A pause that begins and ends between two wake-ups is not seen.
 */
final class PauseDetector {

    static final long INTERVAL_MILLIS = 5;

    private static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS);

    static final String THREAD_NAME = "loom-bulkhead-pause-detector";

    private PauseDetector() {
    }

    /** The pauses seen so far; starts the detector on first use. */
    static CallerPauses pauses() {
        return Shared.PAUSES;
    }

    /** Watches for pauses until the thread is interrupted; the interrupt ends it and stays set. */
    static void watch(CallerPauses pauses) {
        long due = System.nanoTime() + INTERVAL_NANOS;
        while (!Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(due - System.nanoTime());
            long now = System.nanoTime();
            if (now - due >= 0) {
                due = woke(pauses, due, now);
            }
        }
    }

    /**
     * The detector, due at {@code dueNanos}, woke at {@code nowNanos}: the time in between is recorded as a pause
     * (if long enough to count). Returns when it is due next.
     */
    static long woke(CallerPauses pauses, long dueNanos, long nowNanos) {
        pauses.paused(dueNanos, nowNanos);
        return nowNanos + INTERVAL_NANOS;
    }

    private static final class Shared {

        static final CallerPauses PAUSES = start();

        private static CallerPauses start() {
            CallerPauses pauses = new CallerPauses();
            Thread.ofPlatform().name(THREAD_NAME).daemon(true).inheritInheritableThreadLocals(false)
                .start(() -> watch(pauses));
            return pauses;
        }
    }
}
