package io.github.loombulkhead;

import java.util.EnumMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

/** Records every event a bulkhead reports, to compare with its counters. */
final class RecordingListener implements BulkheadListener {

    final LongAdder permitted = new LongAdder();

    final LongAdder completed = new LongAdder();

    final Map<RejectionReason, LongAdder> rejected = new EnumMap<>(RejectionReason.class);

    final Queue<Event> events = new ConcurrentLinkedQueue<>();

    RecordingListener() {
        for (RejectionReason reason : RejectionReason.values()) {
            this.rejected.put(reason, new LongAdder());
        }
    }

    @Override
    public void onPermitted(Bulkhead bulkhead, long waitNanos) {
        this.permitted.increment();
        this.events.add(new Event("permitted", bulkhead.getName(), null, waitNanos));
    }

    @Override
    public void onRejected(Bulkhead bulkhead, RejectionReason reason, long waitNanos) {
        this.rejected.get(reason).increment();
        this.events.add(new Event("rejected", bulkhead.getName(), reason, waitNanos));
    }

    @Override
    public void onCompleted(Bulkhead bulkhead, long executionNanos) {
        this.completed.increment();
        this.events.add(new Event("completed", bulkhead.getName(), null, executionNanos));
    }

    @Override
    public void onLimitChanged(Bulkhead bulkhead, int oldLimit, int newLimit) {
        this.events.add(new Event("limit " + oldLimit + " -> " + newLimit, bulkhead.getName(), null, 0));
    }

    long rejected(RejectionReason reason) {
        return this.rejected.get(reason).sum();
    }

    /** One reported event; {@code nanos} is the wait or the execution time. */
    record Event(String type, String bulkhead, RejectionReason reason, long nanos) {
    }
}
