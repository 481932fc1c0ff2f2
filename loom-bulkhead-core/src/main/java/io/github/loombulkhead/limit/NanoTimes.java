package io.github.loombulkhead.limit;

/**
 * {@code System.nanoTime()} values compared the way its contract asks: by their difference, never by their sign or
 * size, so that times on both sides of a wrap past {@link Long#MAX_VALUE} (an origin the JVM is free to choose) stay in
 * order. {@link #NONE} stands for "no time yet"; a time that happens to equal it reads as none, as in
 * {@code WaitQueue}.
 */
final class NanoTimes {

    /** No time yet. */
    static final long NONE = Long.MIN_VALUE;

    private NanoTimes() {
    }

    /** Whether {@code time} is before {@code other}; nothing is before {@link #NONE}, which is before every time. */
    static boolean isBefore(long time, long other) {
        return other != NONE && (time == NONE || time - other < 0);
    }

    /** The later of two times, {@link #NONE} counting as the earliest; for {@code accumulateAndGet}. */
    static long later(long time, long other) {
        return isBefore(time, other) ? other : time;
    }
}
