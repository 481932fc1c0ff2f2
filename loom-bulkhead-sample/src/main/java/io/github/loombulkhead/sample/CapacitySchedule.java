package io.github.loombulkhead.sample;

import java.time.Duration;
import java.util.List;

/**
 * The callee's capacity over one mode: {@code initial} worker threads from the start, then each change at its
 * time.
 *
 * @param initial worker threads when the mode starts
 * @param changes later changes, in increasing time
 */
public record CapacitySchedule(int initial, List<CapacityChange> changes) {

    public CapacitySchedule {
        if (initial < 1) {
            throw new IllegalArgumentException("initial must be at least 1, but was " + initial);
        }
        changes = List.copyOf(changes);
        for (int i = 1; i < changes.size(); i++) {
            if (changes.get(i).atMs() <= changes.get(i - 1).atMs()) {
                throw new IllegalArgumentException("changes must be in increasing time, but " + changes.get(i)
                        + " comes after " + changes.get(i - 1));
            }
        }
    }

    /** The fewest worker threads at any time. */
    public int minimum() {
        return this.changes.stream().mapToInt(CapacityChange::capacity).reduce(this.initial, Math::min);
    }

    /**
     * The Little's-law bound: how long {@code requests} submitted at once take at the least when each worker
     * serves one request per {@code latency}, i.e. the time at which the capacity integrated over time, divided
     * by the latency, reaches {@code requests} (requests / capacity × latency while the capacity holds still).
     */
    public Duration littlesLawBound(int requests, Duration latency) {
        double latencyMs = latency.toNanos() / 1e6;
        double remaining = requests;
        double startMs = 0;
        int capacity = this.initial;
        for (CapacityChange change : this.changes) {
            double served = capacity * (change.atMs() - startMs) / latencyMs;
            if (served >= remaining) {
                break;
            }
            remaining -= served;
            startMs = change.atMs();
            capacity = change.capacity();
        }
        return Duration.ofNanos(Math.round((startMs + remaining * latencyMs / capacity) * 1e6));
    }
}
