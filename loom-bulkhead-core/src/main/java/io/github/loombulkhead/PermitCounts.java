package io.github.loombulkhead;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The active and waiting counts of one bulkhead, packed into one {@code AtomicLong} (waiting in the
 * high 32 bits, active in the low 32 bits), so that with nobody waiting a permit is taken and given
 * back with one CAS each. Changes that involve a waiter are made under {@link Permits}' lock.
 */
final class PermitCounts {

    /** What {@link #acquireOrWait} did. */
    enum Entry { ACQUIRED, QUEUED, REFUSED }

    private static final long ONE_WAITING = 1L << 32;

    private final AtomicLong packed = new AtomicLong();

    int active() {
        return (int) this.packed.get();
    }

    int waiting() {
        return (int) (this.packed.get() >>> 32);
    }

    /** Takes a permit if fewer than {@code limit} are active and nobody waits. */
    boolean tryAcquire(int limit) {
        for (;;) {
            long c = this.packed.get();
            if ((c >>> 32) != 0 || (int) c >= limit) {
                return false;
            }
            if (this.packed.compareAndSet(c, c + 1)) {
                return true;
            }
        }
    }

    /**
     * Takes a permit as {@link #tryAcquire} does, or else counts one more waiter if fewer than
     * {@code capacity} wait and {@code mayWait}.
     */
    Entry acquireOrWait(int limit, int capacity, boolean mayWait) {
        for (;;) {
            long c = this.packed.get();
            int waiting = (int) (c >>> 32);
            if (waiting == 0 && (int) c < limit) {
                if (this.packed.compareAndSet(c, c + 1)) {
                    return Entry.ACQUIRED;
                }
                continue;
            }
            if (waiting >= capacity || !mayWait) {
                return Entry.REFUSED;
            }
            if (this.packed.compareAndSet(c, c + ONE_WAITING)) {
                return Entry.QUEUED;
            }
        }
    }

    /**
     * Gives a permit back if nobody waits.
     * @return {@code false} if somebody waits: the caller still holds the permit and hands it on
     * @throws IllegalStateException naming {@code bulkhead} if no permit is held
     */
    boolean releaseIfNobodyWaits(String bulkhead) {
        for (;;) {
            long c = this.packed.get();
            if ((int) c <= 0) {
                throw new IllegalStateException("Bulkhead '" + bulkhead + "': more permits released than acquired");
            }
            if ((c >>> 32) != 0) {
                return false;
            }
            if (this.packed.compareAndSet(c, c - 1)) {
                return true;
            }
        }
    }

    /** A held permit passes to a waiter ({@code handedOn}) or is given back. */
    void handedOnOrReleased(boolean handedOn) {
        this.packed.addAndGet(handedOn ? -ONE_WAITING : -1);
    }

    /** A waiter got a new permit (the limit grew). */
    void waiterAcquired() {
        this.packed.addAndGet(1 - ONE_WAITING);
    }

    /** {@code count} waiters left the queue without a permit. */
    void waitersLeft(int count) {
        this.packed.addAndGet(-ONE_WAITING * count);
    }
}
