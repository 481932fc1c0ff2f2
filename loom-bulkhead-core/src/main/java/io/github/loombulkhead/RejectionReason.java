package io.github.loombulkhead;

/**
 * Why a bulkhead refused a call or task. {@link #tag()} is the value used in metrics and logs.
 */
public enum RejectionReason {

    /**
     * No permit was free and the wait queue was full (or waiting is disabled); or a per-host HTTP client already
     * tracks its maximum number of hosts.
     */
    QUEUE_FULL("queue-full"),

    /** The call or task waited {@code maxWaitDuration} without getting a permit. */
    WAIT_TIMED_OUT("wait-timed-out"),

    /**
     * The task was submitted after its executor was shut down, or the bulkhead's cluster was closed while the call or
     * task waited for a lease.
     */
    SHUT_DOWN("shut-down"),

    /** The waiting thread was interrupted before it got a permit. */
    INTERRUPTED("interrupted"),

    /** The bulkhead's limit is shared through a cluster that cannot be reached, and it rejects calls meanwhile. */
    CLUSTER_UNAVAILABLE("cluster-unavailable");

    private final String tag;

    RejectionReason(String tag) {
        this.tag = tag;
    }

    /** Lower-case, hyphenated name, e.g. {@code queue-full}. */
    public String tag() {
        return this.tag;
    }
}
