package io.github.loombulkhead.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The leases of one cluster bulkhead in Redis, changed only by server-side scripts that read Redis's own clock
 * ({@code TIME}), so the clocks of the processes never matter.
 */
final class RedisLeases {

    private final ScriptRunner scripts;

    private final LeaseKeys keys;

    private final List<String> syncKeys;

    private final String process;

    private final String leaseMillis;

    private final String settleMillis;

    RedisLeases(ScriptRunner scripts, LeaseKeys keys, String process, ClusterConfig config) {
        this.scripts = scripts;
        this.keys = keys;
        this.syncKeys = keys.sync();
        this.process = process;
        this.leaseMillis = Long.toString(config.getLeaseDuration().toMillis());
        this.settleMillis = Long.toString(config.settlePeriod().toMillis());
    }

    /** Applies a configured limit that differs from the one last configured; returns the limit in force. */
    int init(int configuredLimit) {
        Object limit = this.scripts.await(LeaseScript.INIT,
                List.of(this.keys.limit(), this.keys.configured(), this.keys.meta()),
                List.of(Integer.toString(configuredLimit)));
        return ((Number) limit).intValue();
    }

    /**
     * Keeps {@code keep} leases (giving the rest back, or claiming more after Redis lost them), asks for {@code want}
     * more, renews them all, and returns the leases held now; waits for the reply.
     */
    LeaseState sync(int keep, int want, int limitIfUnset) {
        return sync(keep, want, limitIfUnset, this.scripts.timeoutMillis());
    }

    /** As {@link #sync(int, int, int)}, waiting at most {@code waitMillis} for the reply. */
    LeaseState sync(int keep, int want, int limitIfUnset, long waitMillis) {
        return LeaseState.of((List<?>) this.scripts.await(LeaseScript.SYNC, this.syncKeys,
                syncArgs(keep, want, limitIfUnset), waitMillis));
    }

    /** How long a call to Redis may take before Redis counts as unreachable. */
    long timeoutMillis() {
        return this.scripts.timeoutMillis();
    }

    /** As {@link #sync}, without waiting: the reply completes the future on the client's I/O thread. */
    CompletableFuture<LeaseState> syncAsync(int keep, int want, int limitIfUnset) {
        // Bounded like a blocking call: a client that queues commands while disconnected would never answer.
        return this.scripts.run(LeaseScript.SYNC, this.syncKeys, syncArgs(keep, want, limitIfUnset))
            .orTimeout(this.scripts.timeoutMillis(), TimeUnit.MILLISECONDS)
            .thenApply((reply) -> LeaseState.of((List<?>) reply));
    }

    /** Whether {@link #syncAsync} returns before Redis replies (it runs the script on the caller's thread otherwise). */
    boolean async() {
        return this.scripts.async();
    }

    private List<String> syncArgs(int keep, int want, int limitIfUnset) {
        return List.of(this.process, Integer.toString(keep), Integer.toString(want), this.leaseMillis,
                Integer.toString(limitIfUnset), this.keys.channel(), this.settleMillis);
    }

    /** Sets the cluster-wide limit and wakes every process, waiting at most {@code waitMillis} for the reply. */
    void changeLimit(int limit, long waitMillis) {
        this.scripts.await(LeaseScript.CHANGE_LIMIT, List.of(this.keys.limit()),
                List.of(Integer.toString(limit), this.keys.channel()), waitMillis);
    }

    /** The pattern of this bulkhead's keys, for a message. */
    String keyPattern() {
        return this.keys.limit().substring(0, this.keys.limit().length() - "limit".length()) + "*";
    }

    String channel() {
        return this.keys.channel();
    }

    String process() {
        return this.process;
    }
}
