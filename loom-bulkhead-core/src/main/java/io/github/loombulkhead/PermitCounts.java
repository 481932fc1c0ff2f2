package io.github.loombulkhead;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The active and waiting counts of one bulkhead, packed into one {@code long} (waiting in the high 32 bits, active
 * in the low 32 bits), so that with nobody waiting a permit is taken and given back with one CAS each. Changes that
 * involve a waiter are made under {@link Permits}' lock. {@link Permits} extends it so that the counts sit in the
 * object a bulkhead already holds: the fast path reads no further object.
 */
abstract class PermitCounts {

    /** What {@link #acquireOrWait} did. */
    enum Entry { ACQUIRED, QUEUED, REFUSED }

    /** What {@link #releaseIfNobodyWaits} did. */
    enum Release { RELEASED, SOMEBODY_WAITS, NONE_HELD }

    private static final long ONE_WAITING = 1L << 32;

    private static final VarHandle PACKED;

    static {
        try {
            PACKED = MethodHandles.lookup().findVarHandle(PermitCounts.class, "packed", long.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private volatile long packed;

    final int active() {
        return (int) this.packed;
    }

    final int waiting() {
        return (int) (this.packed >>> 32);
    }

    private boolean cas(long expected, long value) {
        return PACKED.compareAndSet(this, expected, value);
    }

    private void add(long delta) {
        PACKED.getAndAdd(this, delta);
    }

    /**
     * Takes a permit if fewer than {@code limit} are active and nobody waits.
     * @return the permits active right after this one was taken, this one included; 0 if none was taken
     */
    final int tryAcquireCount(int limit) {
        for (;;) {
            long c = this.packed;
            if ((c >>> 32) != 0 || (int) c >= limit) {
                return 0;
            }
            if (cas(c, c + 1)) {
                return (int) c + 1;
            }
        }
    }

    /**
     * Takes a permit as {@link #tryAcquireCount} does, or else counts one more waiter if fewer than
     * {@code capacity} wait and {@code mayWait}.
     */
    final Entry acquireOrWait(int limit, int capacity, boolean mayWait) {
        for (;;) {
            long c = this.packed;
            int waiting = (int) (c >>> 32);
            if (waiting == 0 && (int) c < limit) {
                if (cas(c, c + 1)) {
                    return Entry.ACQUIRED;
                }
                continue;
            }
            if (waiting >= capacity || !mayWait) {
                return Entry.REFUSED;
            }
            if (cas(c, c + ONE_WAITING)) {
                return Entry.QUEUED;
            }
        }
    }

    /**
     * Gives a permit back if nobody waits; when somebody waits the caller still holds the permit and hands it on.
     * Nothing changes unless {@link Release#RELEASED}.
     */
    final Release releaseIfNobodyWaits() {
        for (;;) {
            long c = this.packed;
            if ((int) c <= 0) {
                return Release.NONE_HELD;
            }
            if ((c >>> 32) != 0) {
                return Release.SOMEBODY_WAITS;
            }
            if (cas(c, c - 1)) {
                return Release.RELEASED;
            }
        }
    }

    /** A held permit passes to a waiter ({@code handedOn}) or is given back. */
    final void handedOnOrReleased(boolean handedOn) {
        add(handedOn ? -ONE_WAITING : -1);
    }

    /** A waiter got a new permit (the limit grew). */
    final void waiterAcquired() {
        add(1 - ONE_WAITING);
    }

    /** {@code count} waiters left the queue without a permit. */
    final void waitersLeft(int count) {
        add(-ONE_WAITING * count);
    }
}
