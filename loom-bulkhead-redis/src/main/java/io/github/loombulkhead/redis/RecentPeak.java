package io.github.loombulkhead.redis;

/**
 * The most calls a process had running or waiting lately, as its script calls saw them: in the current window (one
 * idle linger long) and in the one before. Idle leases linger up to this many, so the leases of a burst long past go
 * back while calls keep trickling in. Not thread-safe: one script call of a bulkhead is under way at a time, and only
 * it records.
 */
final class RecentPeak {

    private final long windowNanos;

    private long windowStart;

    private int current;

    private int previous;

    RecentPeak(long windowNanos, long now) {
        this.windowNanos = windowNanos;
        this.windowStart = now;
    }

    /** Records the calls running or waiting at {@code now}; returns the most seen in this window and the one before. */
    int record(int demand, long now) {
        long elapsed = now - this.windowStart;
        if (elapsed >= this.windowNanos) {
            // The window before is the one just ended, unless a whole window passed without a look.
            this.previous = (elapsed < 2 * this.windowNanos) ? this.current : 0;
            this.current = 0;
            this.windowStart = now;
        }
        this.current = Math.max(this.current, demand);
        return Math.max(this.current, this.previous);
    }
}
