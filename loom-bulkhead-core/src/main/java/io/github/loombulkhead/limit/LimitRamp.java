package io.github.loombulkhead.limit;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * How an adaptive bulkhead applies what its {@link LimitAlgorithm} proposes: a decrease at once, a rise spread over
 * half the round trip of the call that earned it, in {@value #STEPS} steps.
 *
 * <p>Why: calls that finish together hand their permits on together, so the calls they let start also start
 * together and, at a callee with a fixed service time, keep finishing together. Released at once, a rise would add
 * its calls to such a batch. When the limit crosses the callee's capacity, every call of the batch above it then
 * waits a whole service time for a worker, and with a read timeout under two service times it times out before the
 * algorithm can see any queue. Spread over half a round trip, the new calls start between the batches; above the
 * capacity they wait only for the next worker to free up: the queue shows as a longer round trip, which the
 * algorithm reacts to, instead of as timeouts.
 *
 * <p>A rise whose spread would be under {@value #MIN_SPREAD_NANOS} ns applies at once: the scheduling of calls already
 * spreads them that much. No clock of its own: every time is passed in. Not thread-safe; the bulkhead serializes the
 * calls under its lock, and a caller with a timer calls {@link #advance(long)} at {@link #nextStepNanos()}.
 */
public final class LimitRamp {

    /** How many steps a rise is released in. */
    public static final int STEPS = 8;

    /** The shortest spread worth a timer: 1 ms. */
    public static final long MIN_SPREAD_NANOS = 1_000_000L;

    private static final double SPREAD = 0.5;

    private final ArrayDeque<Rise> rises = new ArrayDeque<>();

    private int limit;

    /** Released, but less than one whole permit yet. */
    private double fraction;

    /** Starts at {@code limit}, with nothing to release. */
    public LimitRamp(int limit) {
        this.limit = limit;
    }

    /** The limit in force now. */
    public int getLimit() {
        return this.limit;
    }

    /** Where the limit goes once every rise was released. */
    public int getTarget() {
        return this.limit + (int) Math.round(this.fraction + pending());
    }

    /**
     * The algorithm proposed {@code proposed} at {@code nowNanos}, after a call that took {@code rttNanos}: a lower
     * limit applies at once and drops what was still to be released; a higher one is released over half of
     * {@code rttNanos}.
     * @return the limit in force now
     */
    public int propose(int proposed, long nowNanos, long rttNanos) {
        advance(nowNanos);
        if (proposed <= this.limit) {
            this.limit = proposed;
            this.rises.clear();
            this.fraction = 0;
            return this.limit;
        }
        int target = getTarget();
        if (proposed <= target) {
            trim(target - proposed);
            return this.limit;
        }
        long spread = (long) (rttNanos * SPREAD);
        if (spread < MIN_SPREAD_NANOS) {
            this.limit = proposed;
            this.rises.clear();
            this.fraction = 0;
            return this.limit;
        }
        long interval = spread / STEPS;
        Rise last = this.rises.peekLast();
        if (last != null && nowNanos - last.start < last.interval && last.interval <= 2 * interval) {
            // Rises proposed within one step of each other share their steps, unless that would release the new one
            // more than twice as slowly as its own round trip asks: one slow call must not hold back the rises after
            // it.
            last.add(proposed - target);
        }
        else {
            this.rises.add(new Rise(nowNanos, proposed - target, interval));
        }
        return this.limit;
    }

    /** Releases what is due at {@code nowNanos}; returns the limit in force. */
    public int advance(long nowNanos) {
        Iterator<Rise> iterator = this.rises.iterator();
        while (iterator.hasNext()) {
            Rise rise = iterator.next();
            this.fraction += rise.release(nowNanos);
            if (rise.isDone()) {
                iterator.remove();
            }
        }
        int whole = (int) (this.fraction + 1e-9);
        this.limit += whole;
        this.fraction -= whole;
        return this.limit;
    }

    /** When the next step is due ({@code System.nanoTime()} scale), or {@link Long#MAX_VALUE} if none is. */
    public long nextStepNanos() {
        long next = Long.MAX_VALUE;
        boolean any = false;
        for (Rise rise : this.rises) {
            // By difference, as nanoTime values must be compared.
            if (!any || rise.next - next < 0) {
                next = rise.next;
                any = true;
            }
        }
        return next;
    }

    private double pending() {
        double pending = 0;
        for (Rise rise : this.rises) {
            pending += rise.left;
        }
        return pending;
    }

    /** Takes {@code amount} off what is still to be released, newest first. */
    private void trim(double amount) {
        double left = amount;
        Iterator<Rise> newestFirst = this.rises.descendingIterator();
        while (left > 0 && newestFirst.hasNext()) {
            Rise rise = newestFirst.next();
            double taken = Math.min(left, rise.left);
            rise.left -= taken;
            left -= taken;
            if (rise.isDone()) {
                newestFirst.remove();
            }
        }
    }

    @Override
    public String toString() {
        return "LimitRamp[limit=" + this.limit + ", target=" + getTarget() + "]";
    }

    /** One rise, released in equal steps {@code interval} apart, the first one interval after it was proposed. */
    private static final class Rise {

        final long start;

        final long interval;

        double left;

        double perStep;

        long next;

        Rise(long start, int amount, long interval) {
            this.start = start;
            this.interval = Math.max(1, interval);
            this.left = amount;
            this.perStep = (double) amount / STEPS;
            this.next = start + this.interval;
        }

        void add(int amount) {
            this.left += amount;
            this.perStep += (double) amount / STEPS;
        }

        /** Releases the steps due at {@code now}; returns how much. */
        double release(long now) {
            double released = 0;
            while (!isDone() && now - this.next >= 0) {
                double step = Math.min(this.left, this.perStep);
                this.left -= step;
                released += step;
                this.next += this.interval;
            }
            return released;
        }

        boolean isDone() {
            return this.left <= 1e-9;
        }
    }
}
