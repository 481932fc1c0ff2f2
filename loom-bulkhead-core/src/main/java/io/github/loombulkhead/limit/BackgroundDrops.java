package io.github.loombulkhead.limit;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How often calls fail whatever the load, counted without locks: the share of drops among the calls that started with
 * far fewer calls in flight than where the last overload began (below {@value #CLEAR_PERCENT} % of the limit its
 * decrease fell from; after a refusal, no more than the limit it fell to). {@code aimd} leaves out calls sent before
 * that decrease; {@code gradient}, which counts only refusals as drops here, counts them too (a refusal comes back
 * within milliseconds, a success a round trip later). Those calls did not fail from that overload; what fails among
 * them (a lock, a cold cache, a broken node behind the callee) fails as often at any limit. Older calls count less and
 * less: once {@value #HORIZON} calls were counted, both counts are halved.
 */
final class BackgroundDrops {

    /** Below this share of where the last overload began, in percent, a call started clear of it. */
    static final int CLEAR_PERCENT = 80;

    /** How many calls are counted before both counts are halved. */
    static final int HORIZON = 2000;

    /** How many calls must be counted before their share of drops counts. */
    static final int MIN_CALLS = 50;

    /** The highest share of drops taken for background, in percent. */
    static final int MAX_RATE_PERCENT = 2;

    private static final double CLEAR = CLEAR_PERCENT / 100.0;

    private static final double MAX_RATE = MAX_RATE_PERCENT / 100.0;

    /** How many standard deviations above the background a round's drops may be. */
    private static final double DEVIATIONS = 3;

    // One long: high 32 bits calls, low 32 bits drops, so a reader sees both of the same moment.
    private final AtomicLong counts = new AtomicLong();

    /** Calls that start with fewer in flight than this started clear of the last overload; 0: none counts. */
    private volatile int clearBelow;

    /** Counts a call that started with {@code inflight} calls in flight, if it started clear of the last overload. */
    void finished(boolean dropped, int inflight) {
        if (inflight >= this.clearBelow) {
            return;
        }
        long value = this.counts.addAndGet(dropped ? (1L << 32) + 1 : 1L << 32);
        if ((value >>> 32) >= HORIZON) {
            // Whoever loses this race leaves the halving to the next call.
            this.counts.compareAndSet(value, halved(value));
        }
    }

    /** The limit fell from {@code limit}, where the callee's queue began to fail calls: calls well below it count. */
    void overloadedAt(double limit) {
        this.clearBelow = (int) (CLEAR * limit);
    }

    /**
     * The limit fell to {@code limit} because the callee refused a call at once: it rejects what is above its capacity
     * and queues nothing, so calls that start with no more than that many in flight count.
     */
    void refusedAbove(double limit) {
        this.clearBelow = (int) limit + 1;
    }

    /**
     * Where the last overload began tells nothing about where the callee is clear of it: after the start (it
     * overshoots far past the capacity) or a collapse (calls sent at the low limit still meet the queue of abandoned
     * calls). None counts until the next decrease of another kind.
     */
    void overloadUnknown() {
        this.clearBelow = 0;
    }

    /**
     * The share of the calls counted that failed, at most {@value #MAX_RATE_PERCENT} %; 0 until {@value #MIN_CALLS}
     * were counted (one drop among the first few calls would read as a high share).
     */
    double rate() {
        long value = this.counts.get();
        long calls = value >>> 32;
        long drops = value & 0xFFFF_FFFFL;
        return (calls < MIN_CALLS) ? 0 : Math.min(MAX_RATE, (double) drops / calls);
    }

    /**
     * How many drops a round of {@code calls} may have before they say overload: none while no counted call failed,
     * else the background's share of them and three standard deviations more.
     */
    double tolerated(int calls) {
        double expected = rate() * calls;
        return expected + DEVIATIONS * Math.sqrt(expected);
    }

    private static long halved(long value) {
        long calls = (value >>> 32) / 2;
        long drops = (value & 0xFFFF_FFFFL) / 2;
        return (calls << 32) | drops;
    }
}
