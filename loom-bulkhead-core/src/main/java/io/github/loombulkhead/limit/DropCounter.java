package io.github.loombulkhead.limit;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntToDoubleFunction;

/**
 * Counts calls and drops per round (about one limit's worth of calls) without locks and says when the drops of the
 * current round exceed what is tolerated (a fraction of the round, or what the caller's function gives for a round of
 * that many calls), so a background rate of failures does not shrink the limit.
 */
final class DropCounter {

    // One long: high 32 bits calls, low 32 bits drops, so a reader sees both of the same round.
    private final AtomicLong round = new AtomicLong();

    private final IntToDoubleFunction tolerated;

    /** Tolerates {@code tolerance} of a round's calls as drops. */
    DropCounter(double tolerance) {
        this((calls) -> tolerance * calls);
    }

    /** Tolerates as many drops as {@code tolerated} gives for a round of that many calls. */
    DropCounter(IntToDoubleFunction tolerated) {
        this.tolerated = tolerated;
    }

    /**
     * Counts one call and returns whether the drops of this round now exceed the tolerance.
     * @param dropped whether the call was dropped
     * @param roundSize calls per round: the current limit, so that a round lasts about one RTT under load
     */
    boolean count(boolean dropped, int roundSize) {
        return count(dropped, roundSize, this.tolerated);
    }

    /**
     * Counts one call and returns whether the drops of this round now exceed what {@code tolerated} gives for a round
     * of that many calls, instead of the counter's own tolerance: a round is the same whatever a drop is judged by.
     */
    boolean count(boolean dropped, int roundSize, IntToDoubleFunction tolerated) {
        long value = this.round.addAndGet(dropped ? (1L << 32) + 1 : 1L << 32);
        int calls = (int) (value >>> 32);
        int drops = (int) value;
        int size = Math.max(1, roundSize);
        if (calls >= size && !dropped) {
            this.round.compareAndSet(value, 0);
        }
        return dropped && drops > tolerated.applyAsDouble(Math.max(size, calls));
    }

    /** Starts a new round. */
    void reset() {
        this.round.set(0);
    }
}
