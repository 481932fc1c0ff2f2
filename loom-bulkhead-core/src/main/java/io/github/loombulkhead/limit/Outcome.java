package io.github.loombulkhead.limit;

/** How a finished call counts for a {@link LimitAlgorithm}. */
public enum Outcome {

    /** The callee answered: its RTT tells how loaded the callee is. */
    SUCCESS,

    /** An overload signal (timeout, refused connection, 503, 429): the limit should fall. */
    DROPPED,

    /** Tells nothing about the callee (cancelled, failed before it was sent): no sample is taken. */
    IGNORED
}
