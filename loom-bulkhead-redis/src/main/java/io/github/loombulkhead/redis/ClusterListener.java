package io.github.loombulkhead.redis;

/** Receives a cluster bulkhead's events; the starter binds them to Micrometer. Must be fast and must not throw. */
public interface ClusterListener {

    /** A sync with Redis (renewal, release and request in one script call) took {@code nanos}; it failed if {@code error}. */
    default void onRoundTrip(ClusterBulkhead cluster, long nanos, RuntimeException error) {
    }

    /** Redis went away ({@code FALLBACK}) or came back ({@code CLUSTER}). */
    default void onModeChanged(ClusterBulkhead cluster, ClusterMode mode) {
    }
}
