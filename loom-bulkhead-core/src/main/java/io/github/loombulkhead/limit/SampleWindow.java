package io.github.loombulkhead.limit;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Calls gathered without locks for one comparison with the no-load RTT: how many, their mean RTT (each capped, so one
 * very slow call moves the mean only so far) and the mean in-flight count they started with. A sample racing with the
 * switch to the next window may land in the closed one and be left out; that loses one sample, never mixes windows.
 */
final class SampleWindow {

    private static final int RTT_CAP = 4;

    private final long rttCap;

    private final AtomicInteger count = new AtomicInteger();

    private final AtomicLong rttSum = new AtomicLong();

    private final AtomicLong inflightSum = new AtomicLong();

    private final AtomicLong firstEnd = new AtomicLong(NanoTimes.NONE);

    private final AtomicLong latestEnd = new AtomicLong(NanoTimes.NONE);

    /** @param rttCap the largest RTT a sample counts with */
    SampleWindow(long rttCap) {
        this.rttCap = rttCap;
    }

    /** A window whose samples count with at most four no-load RTTs ({@code noLoadRtt} 0: unknown, uncapped). */
    static SampleWindow after(long noLoadRtt) {
        return new SampleWindow((noLoadRtt > 0) ? noLoadRtt * RTT_CAP : Long.MAX_VALUE);
    }

    void add(long startNanos, long rttNanos, int inflight) {
        long end = startNanos + rttNanos;
        this.firstEnd.compareAndSet(NanoTimes.NONE, end);
        this.latestEnd.accumulateAndGet(end, NanoTimes::later);
        this.rttSum.addAndGet(Math.min(rttNanos, this.rttCap));
        this.inflightSum.addAndGet(inflight);
        this.count.incrementAndGet();
    }

    /**
     * Whether at least {@code minSamples} calls finished over at least one {@code noLoadRtt} (0: unknown, then over
     * their own mean RTT).
     */
    boolean isComplete(int minSamples, long noLoadRtt) {
        long span = noLoadRtt;
        if (span == 0) {
            span = (count() > 0) ? meanRtt() : Long.MAX_VALUE;
        }
        return this.count.get() >= minSamples && this.latestEnd.get() - this.firstEnd.get() >= span;
    }

    int count() {
        return this.count.get();
    }

    /** Mean RTT of the window; 0 when empty. */
    long meanRtt() {
        int n = this.count.get();
        return (n == 0) ? 0 : this.rttSum.get() / n;
    }

    double meanInflight() {
        return (double) this.inflightSum.get() / Math.max(1, this.count.get());
    }

    /** When the latest call of the window finished. */
    long latestEnd() {
        return this.latestEnd.get();
    }
}
