package io.github.loombulkhead.redis;

import java.util.List;

/**
 * The Redis keys of one cluster bulkhead, {@code <prefix>:{<name>}:<part>}: the braces keep them in one slot of a
 * Redis Cluster, as a script needs.
 */
record LeaseKeys(String limit, String configured, String held, String expiry, String want, String queue,
        String pending, String meta, String channel) {

    static LeaseKeys of(String prefix, String name) {
        String base = prefix + ":{" + name + "}:";
        return new LeaseKeys(base + "limit", base + "configured-limit", base + "held", base + "expiry", base + "want",
                base + "queue", base + "pending", base + "meta", base + "released");
    }

    List<String> sync() {
        return List.of(this.limit, this.held, this.expiry, this.want, this.queue, this.pending, this.meta, this.configured);
    }
}
