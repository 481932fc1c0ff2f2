package io.github.loombulkhead.limit;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A decrease that dropped calls made due, gathered without locks: when the latest of them ended, and when the latest
 * of them started. It is pending while those calls describe the limit in force, so one overload makes one decrease
 * per round: a call that passed the "started before the last decrease" test just before a decrease, and marks a
 * decrease due just after it, started before that decrease and leaves it pending no more.
 */
final class DueDecrease {

    private final AtomicLong end = new AtomicLong(NanoTimes.NONE);

    private final AtomicLong start = new AtomicLong(NanoTimes.NONE);

    /** Calls that started at {@code startNanos} and ended at {@code endNanos} make a decrease due. */
    void due(long startNanos, long endNanos) {
        this.start.accumulateAndGet(startNanos, NanoTimes::later);
        this.end.accumulateAndGet(endNanos, NanoTimes::later);
    }

    /**
     * A call that started before the last decrease makes one more due, as of now ({@code endNanos}): the calls before
     * it say the callee collapsed.
     */
    void dueNow(long endNanos) {
        due(endNanos, endNanos);
    }

    /** Whether a decrease is pending after the last one, made at {@code lastDecreaseNanos}. */
    boolean isPending(long lastDecreaseNanos) {
        return NanoTimes.isBefore(lastDecreaseNanos, this.end.get())
                && !NanoTimes.isBefore(this.start.get(), lastDecreaseNanos);
    }

    /** When the latest call that made a decrease due ended; the time of the decrease it makes. */
    long end() {
        return this.end.get();
    }
}
