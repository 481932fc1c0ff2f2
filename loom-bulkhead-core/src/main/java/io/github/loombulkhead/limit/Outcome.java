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

    /** What an HTTP answer with {@code status} says: {@code 503} and {@code 429} are drops, any other a success. */
    public static Outcome ofStatus(int status) {
        return (status == SERVICE_UNAVAILABLE || status == TOO_MANY_REQUESTS) ? DROPPED : SUCCESS;
    }
}
