package io.github.loombulkhead.http;

import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;

/**
 * Thrown by a per-host {@link BulkheadClientHttpRequestInterceptor} for a request to a new target
 * when it already tracks its maximum number of hosts. A rejection like any other ({@link RejectionReason#QUEUE_FULL}
 * for the bulkhead the target would have had, which is not created, so nothing counts it), so an application
 * answers it as it answers {@link BulkheadRejectedException}. The bound is configuration, not load: raise
 * {@code maxHosts}, or use one client-wide bulkhead for clients that talk to open-ended sets of hosts.
 */
public class TooManyHostsException extends BulkheadRejectedException {

    private static final long serialVersionUID = 1L;

    private final String target;

    private final int maxHosts;

    public TooManyHostsException(String namePrefix, String target, int maxHosts) {
        super(namePrefix + target, RejectionReason.QUEUE_FULL, "per-host bulkheads '" + namePrefix + "*' already track "
                + maxHosts + " hosts (maxHosts=" + maxHosts + "), none for new target " + target
                + "; raise maxHosts or use a per-client bulkhead");
        this.target = target;
        this.maxHosts = maxHosts;
    }

    /** The refused target, {@code scheme://host:port}. */
    public String getTarget() {
        return this.target;
    }

    /** The configured bound on tracked hosts. */
    public int getMaxHosts() {
        return this.maxHosts;
    }
}
