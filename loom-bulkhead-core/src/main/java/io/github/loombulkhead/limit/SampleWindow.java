package io.github.loombulkhead.limit;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Calls gathered without locks for one comparison with the no-load RTT: how many, their mean RTT (each capped, so one
 * very slow call moves the mean only so far) and the mean in-flight count they started with. Every call adds itself
 * to the totals in one atomic step, so whoever reads them sees whole calls only, never a call's RTT without its
 * count. A call racing with the switch to the next window may land in the closed one after it was read and be left
 * out; that loses one sample, never mixes windows.
 */
final class SampleWindow {

    private static final int RTT_CAP = 4;

    private final long rttCap;

    private final AtomicReference<Totals> totals = new AtomicReference<>(Totals.EMPTY);

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
        long rtt = Math.min(rttNanos, this.rttCap);
        this.totals.updateAndGet((current) -> current.plus(end, rtt, rttNanos, inflight));
    }

    /** The calls added so far, all of each. */
    Totals totals() {
        return this.totals.get();
    }

    /**
     * Calls of a window: how many, the sums of their RTTs (capped and not) and in-flight counts, when the first one
     * added and the latest one finished.
     */
    record Totals(int count, long rttSum, long uncappedRttSum, long inflightSum, long firstEnd, long latestEnd) {

        static final Totals EMPTY = new Totals(0, 0, 0, 0, NanoTimes.NONE, NanoTimes.NONE);

        Totals plus(long end, long rtt, long uncappedRtt, int inflight) {
            return new Totals(this.count + 1, this.rttSum + rtt, this.uncappedRttSum + uncappedRtt,
                    this.inflightSum + inflight, (this.count == 0) ? end : this.firstEnd,
                    NanoTimes.later(this.latestEnd, end));
        }

        /**
         * Whether at least {@code minSamples} calls finished over at least one {@code noLoadRtt} (0: unknown, then over
         * their own mean RTT).
         */
        boolean isComplete(int minSamples, long noLoadRtt) {
            if (this.count == 0 || this.count < minSamples) {
                return false;
            }
            long span = (noLoadRtt == 0) ? meanRtt() : noLoadRtt;
            return this.latestEnd - this.firstEnd >= span;
        }

        /**
         * Mean RTT without the cap; 0 when empty. The cap is four no-load RTTs as they were when the window opened:
         * a callee that turned more than four times slower would read as four times slower only.
         */
        long meanUncappedRtt() {
            return (this.count == 0) ? 0 : this.uncappedRttSum / this.count;
        }

        /** Mean RTT; 0 when empty. */
        long meanRtt() {
            return (this.count == 0) ? 0 : this.rttSum / this.count;
        }

        /** Mean in-flight count the calls started with; 0 when empty. */
        double meanInflight() {
            return (this.count == 0) ? 0 : (double) this.inflightSum / this.count;
        }
    }
}
