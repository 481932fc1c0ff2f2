package io.github.loombulkhead.sample;

import java.time.Duration;
import java.util.List;
import java.util.TreeSet;

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
     * serves one request per {@code latency}, i.e. the first time at which the usable capacity integrated over
     * time, divided by the latency, reaches {@code requests} (requests / capacity × latency while the capacity
     * holds still). A rise is usable at once; a drop only once the workers above the new capacity have finished
     * their request, up to one latency later, so the capacity usable at a time is the highest over the latency
     * before it.
     */
    public Duration littlesLawBound(int requests, Duration latency) {
        double latencyMs = latency.toNanos() / 1e6;
        double[] steps = usableCapacitySteps(latencyMs);
        double remaining = requests;
        for (int i = 0;; i++) {
            double startMs = steps[i];
            double endMs = (i + 1 < steps.length) ? steps[i + 1] : Double.POSITIVE_INFINITY;
            // Constant between two steps; asked in the middle, so no rounding puts it on a step.
            int capacity = usableCapacity(startMs + (Double.isInfinite(endMs) ? latencyMs : endMs - startMs) / 2,
                    latencyMs);
            double served = capacity * (endMs - startMs) / latencyMs;
            if (served >= remaining) {
                return Duration.ofNanos(Math.round((startMs + remaining * latencyMs / capacity) * 1e6));
            }
            remaining -= served;
        }
    }

    /** The times at which the usable capacity may change, in increasing order: 0, each change, one latency later. */
    private double[] usableCapacitySteps(double latencyMs) {
        TreeSet<Double> steps = new TreeSet<>(List.of(0.0));
        for (CapacityChange change : this.changes) {
            steps.add((double) change.atMs());
            steps.add(change.atMs() + latencyMs);
        }
        return steps.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** The most workers at any time over the latency up to {@code atMs}: those a drop has not stopped yet. */
    private int usableCapacity(double atMs, double latencyMs) {
        int usable = 0;
        int capacity = this.initial;
        for (CapacityChange change : this.changes) {
            if (change.atMs() > atMs) {
                break;
            }
            if (change.atMs() > atMs - latencyMs) {
                // The capacity before this change still had workers busy less than one latency ago.
                usable = Math.max(usable, capacity);
            }
            capacity = change.capacity();
        }
        return Math.max(usable, capacity);
    }
}
