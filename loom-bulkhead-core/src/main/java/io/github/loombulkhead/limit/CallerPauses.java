package io.github.loombulkhead.limit;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The recent pauses of the caller's own process: spans in which it ran nothing (a stop-the-world collection, a long
 * safepoint, the whole process descheduled). A call in flight across such a pause comes back late by up to its
 * length though the callee answered in time, and a latency algorithm would read that as a queue. A bulkhead hands
 * such a call to its algorithm as held up ({@link LimitAlgorithm#onPausedSample}), with what {@link #heldUpNanos}
 * finds.
 *
 * <p>One thread records pauses, in the order they happened (in the bulkhead, a detector thread that measures how
 * late it wakes); any thread may ask. Only the latest {@value #CAPACITY} pauses are kept. However often the process
 * pauses, a call that failed still counts: a callee that times out or refuses lowers the limit all the same.
 */
public final class CallerPauses {

    /** Shorter pauses are not recorded: scheduling noise, and too short to change a window's mean. */
    public static final long MIN_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** A call counts as held up when one pause took at least this share of its RTT. */
    static final double HELD_UP_SHARE = 0.1;

    static final int CAPACITY = 32;

    private final AtomicLongArray from = new AtomicLongArray(CAPACITY);

    private final AtomicLongArray to = new AtomicLongArray(CAPACITY);

    /** How many pauses were recorded; the slot of the next one is this modulo the capacity. */
    private final AtomicLong recorded = new AtomicLong();

    /**
     * The process ran nothing from {@code fromNanos} to {@code toNanos} ({@link System#nanoTime()} values, the
     * latest pause so far). Pauses shorter than {@link #MIN_PAUSE_NANOS} are not recorded. One thread at a time.
     */
    public void paused(long fromNanos, long toNanos) {
        if (toNanos - fromNanos < MIN_PAUSE_NANOS) {
            return;
        }
        long next = this.recorded.get();
        int slot = (int) (next % CAPACITY);
        this.from.set(slot, fromNanos);
        this.to.set(slot, toNanos);
        this.recorded.set(next + 1);
    }

    /**
     * How long a pause of the caller held up a call that started at {@code startNanos} and took {@code rttNanos}:
     * the part of its RTT that one recorded pause took, if that is at least a tenth of it; otherwise 0, and the RTT
     * is the callee's.
     */
    public long heldUpNanos(long startNanos, long rttNanos) {
        long end = startNanos + rttNanos;
        long count = this.recorded.get();
        for (long index = count - 1; index >= 0 && index >= count - CAPACITY; index--) {
            int slot = (int) (index % CAPACITY);
            long pauseTo = this.to.get(slot);
            long pauseFrom = this.from.get(slot);
            if (!NanoTimes.isBefore(startNanos, pauseTo)) {
                // This pause ended before the call started, and older ones ended earlier still.
                return 0;
            }
            long overlap = Math.min(end - pauseFrom, pauseTo - pauseFrom) - Math.max(0, startNanos - pauseFrom);
            if (overlap > 0 && overlap >= HELD_UP_SHARE * rttNanos) {
                return overlap;
            }
        }
        return 0;
    }
}
