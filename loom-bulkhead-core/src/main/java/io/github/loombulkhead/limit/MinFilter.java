package io.github.loombulkhead.limit;

/**
 * The smallest value seen during the last {@code horizon} nanoseconds, kept in four buckets so that an old minimum
 * expires a quarter of the horizon at a time. Not thread-safe: its owner guards it.
 */
final class MinFilter {

    private static final int BUCKETS = 4;

    private final long[] minimums = new long[BUCKETS];

    private int current;

    private long bucketStart;

    private boolean empty = true;

    /** Adds {@code value} seen at {@code now} and returns the minimum over the last {@code horizon} nanoseconds. */
    long update(long now, long value, long horizon) {
        long width = Math.max(1, horizon / BUCKETS);
        if (this.empty || now - this.bucketStart >= width * BUCKETS) {
            java.util.Arrays.fill(this.minimums, Long.MAX_VALUE);
            this.bucketStart = now;
            this.empty = false;
        }
        while (now - this.bucketStart >= width) {
            this.current = (this.current + 1) % BUCKETS;
            this.minimums[this.current] = Long.MAX_VALUE;
            this.bucketStart += width;
        }
        this.minimums[this.current] = Math.min(this.minimums[this.current], value);
        return get();
    }

    /** The current minimum; {@link Long#MAX_VALUE} before the first value. */
    long get() {
        long min = Long.MAX_VALUE;
        for (long value : this.minimums) {
            min = Math.min(min, value);
        }
        return this.empty ? Long.MAX_VALUE : min;
    }

    /** Forgets everything but {@code value}, seen at {@code now}. */
    void reset(long now, long value) {
        java.util.Arrays.fill(this.minimums, Long.MAX_VALUE);
        this.minimums[this.current] = value;
        this.bucketStart = now;
        this.empty = false;
    }
}
