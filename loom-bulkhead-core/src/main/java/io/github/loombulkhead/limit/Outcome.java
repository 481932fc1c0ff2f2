package io.github.loombulkhead.limit;

/** How a finished call counts for a {@link LimitAlgorithm}. */
public enum Outcome {

    /** The callee answered: its RTT tells how loaded the callee is. */
    SUCCESS,

    /** An overload signal (timeout, refused connection, 503, 429): the limit should fall. */
    DROPPED,

    /** Tells nothing about the callee (cancelled, failed before it was sent): no sample is taken. */
    IGNORED;

    private static final int SERVICE_UNAVAILABLE = 503;

    private static final int TOO_MANY_REQUESTS = 429;

    /** A drop is refused at once when its RTT times this is under the callee's usual RTT. */
    private static final int REFUSED_RTT_DIVISOR = 4;

    /** What an HTTP answer with {@code status} says: {@code 503} and {@code 429} are drops, any other a success. */
    public static Outcome ofStatus(int status) {
        return (status == SERVICE_UNAVAILABLE || status == TOO_MANY_REQUESTS) ? DROPPED : SUCCESS;
    }

    /**
     * Whether a drop that took {@code rttNanos} was refused at once rather than queued: back within a quarter of
     * {@code usualRttNanos} (0: not known yet, and nothing counts as refused). A callee that rejects what is above its
     * capacity (a {@code 429} or {@code 503} from a server-side limiter, a refused connection) has no queue to drain.
     */
    static boolean isRefusedAtOnce(long rttNanos, long usualRttNanos) {
        return usualRttNanos > 0 && rttNanos * REFUSED_RTT_DIVISOR < usualRttNanos;
    }
}
