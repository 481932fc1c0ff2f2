package io.github.loombulkhead.limit;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Successful calls gathered without locks until {@code capacity} of them arrived: their RTTs (for the median), the
 * in-flight counts they started with, and how many of them started with every permit of {@code fullAt} in use
 * ("full" samples, which tell how the callee copes with the whole limit). A sample racing with the swap to the
 * next window may land in the closed one and be left out; that loses one sample, never corrupts a window.
 */
final class SampleWindow {

    private final int capacity;

    private final int fullAt;

    private final long fullRttThreshold;

    private final long quietRttThreshold;

    private final AtomicInteger count = new AtomicInteger();

    private final AtomicLongArray rtts;

    private final AtomicLong inflightSum = new AtomicLong();

    private final AtomicLong rttSum = new AtomicLong();

    private long clip = Long.MAX_VALUE;

    private final AtomicLong latestEnd = new AtomicLong(Long.MIN_VALUE);

    private final AtomicLong firstEnd = new AtomicLong(Long.MIN_VALUE);

    private final AtomicInteger fullFast = new AtomicInteger();

    private final AtomicInteger fullSlow = new AtomicInteger();

    private final AtomicInteger fullQuiet = new AtomicInteger();

    /**
     * @param capacity samples that close the window
     * @param fullAt in-flight count (the limit when the window opened) from which a sample is "full"
     * @param fullRttThreshold RTT above which a full sample counts as slow
     */
    SampleWindow(int capacity, int fullAt, long fullRttThreshold, long quietRttThreshold) {
        this.capacity = capacity;
        this.fullAt = fullAt;
        this.fullRttThreshold = fullRttThreshold;
        this.quietRttThreshold = quietRttThreshold;
        this.rtts = new AtomicLongArray(capacity);
    }

    void add(long startNanos, long rttNanos, int inflight) {
        this.rttSum.addAndGet(Math.min(rttNanos, this.clip));
        int seen = this.count.getAndIncrement();
        if (seen < this.capacity) {
            this.rtts.set(seen, Math.max(1, rttNanos));
        }
        else {
            // Reservoir sampling (Algorithm R) with a deterministic pseudo-random slot: every sample of the window
            // is kept with the same probability, so the median covers the whole window, not its first calls.
            long slot = Long.remainderUnsigned(mix(seen), seen + 1L);
            if (slot < this.capacity) {
                this.rtts.set((int) slot, Math.max(1, rttNanos));
            }
        }
        long end = startNanos + rttNanos;
        this.firstEnd.compareAndSet(Long.MIN_VALUE, end);
        this.inflightSum.addAndGet(inflight);
        this.latestEnd.accumulateAndGet(end, Math::max);
        if (inflight >= this.fullAt) {
            if (rttNanos > this.fullRttThreshold) {
                this.fullSlow.incrementAndGet();
            }
            else {
                this.fullFast.incrementAndGet();
                if (rttNanos <= this.quietRttThreshold) {
                    this.fullQuiet.incrementAndGet();
                }
            }
        }
    }

    /** Whether at least {@code minSamples} arrived over at least {@code minSpan} nanoseconds of completions. */
    boolean isComplete(int minSamples, long minSpan) {
        return this.count.get() >= minSamples && this.latestEnd.get() - this.firstEnd.get() >= minSpan;
    }

    int count() {
        return this.count.get();
    }

    private static long mix(long value) {
        long z = value * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The median RTT of the samples written so far; 0 when none is. */
    long medianRtt() {
        long[] values = new long[this.capacity];
        int n = 0;
        for (int i = 0; i < this.capacity; i++) {
            long rtt = this.rtts.get(i);
            if (rtt > 0) {
                values[n++] = rtt;
            }
        }
        if (n == 0) {
            return 0;
        }
        Arrays.sort(values, 0, n);
        return values[(n - 1) / 2];
    }

    /** Caps every RTT added from now on at {@code clip}, so one very slow call moves the mean only so far. */
    SampleWindow clip(long clip) {
        this.clip = clip;
        return this;
    }

    /** The mean RTT of the window, each RTT capped at the clip. */
    long meanRtt() {
        return this.rttSum.get() / Math.max(1, this.count.get());
    }

    double meanInflight() {
        return (double) this.inflightSum.get() / Math.max(1, this.count.get());
    }

    /** Successful calls per nanosecond between the first and the last completion of the window. */
    double throughput() {
        long span = this.latestEnd.get() - this.firstEnd.get();
        return (span <= 0) ? Double.MAX_VALUE : (this.count.get() - 1) / (double) span;
    }

    long latestEnd() {
        return this.latestEnd.get();
    }

    int fullAt() {
        return this.fullAt;
    }

    int fullFast() {
        return this.fullFast.get();
    }

    int fullQuiet() {
        return this.fullQuiet.get();
    }

    int full() {
        return this.fullFast.get() + this.fullSlow.get();
    }

    int fullSlow() {
        return this.fullSlow.get();
    }
}
