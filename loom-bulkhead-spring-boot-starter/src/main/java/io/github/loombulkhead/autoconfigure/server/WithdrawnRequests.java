package io.github.loombulkhead.autoconfigure.server;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts, per bulkhead, the requests that left its queue without ever running because they ended while they
 * waited for a permit. The bulkhead's own counts hold them neither as permitted nor as rejected.
 */
public final class WithdrawnRequests {

    private final Map<Reason, Map<String, LongAdder>> counts = new EnumMap<>(Reason.class);

    public WithdrawnRequests() {
        for (Reason reason : Reason.values()) {
            this.counts.put(reason, new ConcurrentHashMap<>());
        }
    }

    /** Why a waiting request left the queue. */
    public enum Reason {

        /** The filter found the client's connection closed. */
        CLIENT_DISCONNECTED("client-disconnected"),

        /** The container ended the request: an error it noticed, an async timeout, its shutdown. */
        REQUEST_ENDED("request-ended");

        private final String tag;

        Reason(String tag) {
            this.tag = tag;
        }

        /** The value of the {@code reason} tag of the {@code loom.bulkhead.server.withdrawn} meter. */
        public String tag() {
            return this.tag;
        }
    }

    void count(String bulkhead, Reason reason) {
        this.counts.get(reason).computeIfAbsent(bulkhead, (name) -> new LongAdder()).increment();
    }

    /** Requests of bulkhead {@code bulkhead} withdrawn for {@code reason} so far. */
    public long getCount(String bulkhead, Reason reason) {
        LongAdder count = this.counts.get(reason).get(bulkhead);
        return (count != null) ? count.sum() : 0;
    }
}
