package io.github.loombulkhead;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import io.github.loombulkhead.limit.Outcome;

/** The counters of one bulkhead and its listeners: each event is counted, then listeners hear of it. */
final class BulkheadStatistics {

    private final LongAdder permitted = new LongAdder();

    private final LongAdder completed = new LongAdder();

    private final Map<RejectionReason, LongAdder> rejected = new EnumMap<>(RejectionReason.class);

    private final BulkheadListeners listeners = new BulkheadListeners();

    BulkheadStatistics() {
        for (RejectionReason reason : RejectionReason.values()) {
            this.rejected.put(reason, new LongAdder());
        }
    }

    BulkheadListeners listeners() {
        return this.listeners;
    }

    void permitted(Bulkhead bulkhead, long waitNanos) {
        this.permitted.increment();
        this.listeners.permitted(bulkhead, waitNanos);
    }

    /** Counted before the permit goes back, so whoever sees the call's result sees it counted. */
    void countCompleted() {
        this.completed.increment();
    }

    void completed(Bulkhead bulkhead, long executionNanos) {
        this.listeners.completed(bulkhead, executionNanos);
    }

    void sampled(Bulkhead bulkhead, long rttNanos, Outcome outcome) {
        this.listeners.sampled(bulkhead, rttNanos, outcome);
    }

    void pausedSample(Bulkhead bulkhead, long rttNanos, long pausedNanos) {
        this.listeners.pausedSample(bulkhead, rttNanos, pausedNanos);
    }

    /** Counts a rejection, tells listeners, and returns the exception to throw or hand over. */
    BulkheadRejectedException countRejection(Bulkhead bulkhead, RejectionReason reason, long waitNanos, String detail) {
        this.rejected.get(reason).increment();
        this.listeners.rejected(bulkhead, reason, waitNanos);
        return new BulkheadRejectedException(bulkhead.getName(), reason, detail);
    }

    long permittedCount() {
        return this.permitted.sum();
    }

    long completedCount() {
        return this.completed.sum();
    }

    long rejectedCount(RejectionReason reason) {
        return this.rejected.get(reason).sum();
    }

    long rejectedCount() {
        long total = 0;
        for (LongAdder adder : this.rejected.values()) {
            total += adder.sum();
        }
        return total;
    }
}
