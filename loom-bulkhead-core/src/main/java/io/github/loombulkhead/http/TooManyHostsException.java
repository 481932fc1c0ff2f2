package io.github.loombulkhead.http;

/**
 * Thrown by a per-host {@link BulkheadClientHttpRequestInterceptor} for a request to a new target
 * when it already tracks its maximum number of hosts. This is a configuration bound, not load: raise
 * {@code maxHosts}, or use one client-wide bulkhead for clients that talk to open-ended sets of hosts.
 */
public class TooManyHostsException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String target;

    private final int maxHosts;

    public TooManyHostsException(String namePrefix, String target, int maxHosts) {
        super("Per-host bulkheads '" + namePrefix + "*' already track " + maxHosts + " hosts (maxHosts=" + maxHosts
                + "); request to new target " + target + " refused. Raise maxHosts or use a per-client bulkhead");
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
