package io.github.loombulkhead.autoconfigure.cluster;

import io.github.loombulkhead.redis.ClusterBulkheads;

import org.springframework.context.Phased;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Closes the starter's {@link ClusterBulkheads} when the context stops, in the phase just above the Redis connection
 * factory's (Spring Boot's Lettuce and Jedis factories stop in phase 0, so this stops in phase 1): the bulkheads' last
 * sync still reaches Redis and gives their unused leases back, so other processes get those permits at once instead of
 * when the leases expire. Web graceful shutdown stops in a far higher phase (Spring Boot's
 * {@code SmartLifecycle.DEFAULT_PHASE - 1024}), and so do most message listener containers: requests and messages
 * drain first, while the leases are still held.
 *
 * <p>The cluster bulkheads are live from their creation, so this counts as running until it stopped them, whether or
 * not the context ever started its lifecycle beans: a context closed right after its refresh gives the leases back as
 * well. Closing is idempotent; the bean's destroy method closes again, a no-op then (or the close, when the context
 * never stopped its lifecycle beans, as when its refresh failed). A context stopped and started again keeps the
 * cluster bulkheads closed: their calls are rejected with reason {@code shut-down}.
 */
final class ClusterBulkheadsLifecycle implements SmartLifecycle {

    private final ClusterBulkheads cluster;

    private final int phase;

    private volatile boolean stopped;

    ClusterBulkheadsLifecycle(ClusterBulkheads cluster, RedisConnectionFactory connectionFactory) {
        this.cluster = cluster;
        this.phase = phaseBefore(connectionFactory);
    }

    /**
     * The phase just above the connection factory's, so this stops before it; a factory that is not {@link Phased}
     * stops, if it is a {@link org.springframework.context.Lifecycle} at all, in phase 0.
     */
    static int phaseBefore(RedisConnectionFactory connectionFactory) {
        int factoryPhase = (connectionFactory instanceof Phased phased) ? phased.getPhase() : 0;
        // In the highest phase already: the same phase, where a bean that depends on the factory stops before it.
        return (factoryPhase == Integer.MAX_VALUE) ? factoryPhase : factoryPhase + 1;
    }

    @Override
    public void start() {
        // Nothing to do: the cluster bulkheads lease from their creation on.
    }

    /** Gives back the unused leases and stops the cluster bulkheads; takes at most one lease with Redis away. */
    @Override
    public void stop() {
        this.stopped = true;
        this.cluster.close();
    }

    @Override
    public boolean isRunning() {
        return !this.stopped;
    }

    @Override
    public int getPhase() {
        return this.phase;
    }
}
