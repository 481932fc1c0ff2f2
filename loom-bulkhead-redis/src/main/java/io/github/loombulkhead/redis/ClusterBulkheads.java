package io.github.loombulkhead.redis;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.loombulkhead.Bulkhead;
import io.lettuce.core.RedisClient;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The cluster bulkheads of one process against one Redis: each process gets an id, leases are kept under
 * {@code <keyPrefix>:{<bulkhead name>}:*}, and one pub/sub connection wakes the bulkheads when another process
 * released permits (a lost message costs at most a 50 ms poll, never a permit).
 *
 * <pre>
 * ClusterBulkheads cluster = ClusterBulkheads.create(redisConnectionFactory, "orders-service:prod");
 * // or, without Spring: ClusterBulkheads.create(RedisClient.create("redis://redis.internal"), "orders-service:prod")
 * cluster.attach(registry.bulkhead("inventory"), ClusterConfig.ofDefaults());
 * </pre>
 */
public final class ClusterBulkheads implements AutoCloseable {

    /** Default key prefix. */
    public static final String DEFAULT_KEY_PREFIX = "loom-bulkhead";

    private final ScriptRunner scripts;

    private final String keyPrefix;

    private final String processId;

    private final LeaseMessages messages;

    private final ClusterListener listener;

    private final Map<String, ClusterBulkhead> bulkheads = new ConcurrentHashMap<>();

    private final AtomicBoolean closed = new AtomicBoolean();

    private ClusterBulkheads(String keyPrefix, ClusterListener listener, ScriptRunner scripts, LeaseMessages messages) {
        this.keyPrefix = keyPrefix;
        this.listener = listener;
        this.scripts = scripts;
        this.messages = messages;
        this.processId = ManagementFactory.getRuntimeMXBean().getName() + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * Cluster bulkheads against the Redis of {@code connectionFactory}, with keys under {@code keyPrefix}. With
     * Lettuce, scripts run asynchronously on the connection the factory hands out; pub/sub uses a listener container.
     */
    public static ClusterBulkheads create(RedisConnectionFactory connectionFactory, String keyPrefix) {
        return create(connectionFactory, keyPrefix, new ClusterListener() {
        });
    }

    /** As {@link #create(RedisConnectionFactory, String)}, with a listener for every cluster bulkhead's events. */
    public static ClusterBulkheads create(RedisConnectionFactory connectionFactory, String keyPrefix,
            ClusterListener listener) {
        Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
        return new ClusterBulkheads(requireKeyPrefix(keyPrefix), Objects.requireNonNull(listener, "listener must not be null"),
                new ConnectionFactoryScripts(connectionFactory), new ListenerContainerMessages(connectionFactory));
    }

    /**
     * Cluster bulkheads against the Redis of a Lettuce {@code redisClient} (for applications without Spring), with
     * keys under {@code keyPrefix}: one connection for scripts and one for pub/sub, opened here and closed by
     * {@link #close()}; the client stays the caller's. Redis need not be up yet: the bulkheads start in their fallback.
     */
    public static ClusterBulkheads create(RedisClient redisClient, String keyPrefix) {
        return create(redisClient, keyPrefix, new ClusterListener() {
        });
    }

    /** As {@link #create(RedisClient, String)}, with a listener for every cluster bulkhead's events. */
    public static ClusterBulkheads create(RedisClient redisClient, String keyPrefix, ClusterListener listener) {
        Objects.requireNonNull(redisClient, "redisClient must not be null");
        return new ClusterBulkheads(requireKeyPrefix(keyPrefix), Objects.requireNonNull(listener, "listener must not be null"),
                new RedisClientScripts(redisClient), new RedisClientMessages(redisClient));
    }

    static String requireKeyPrefix(String keyPrefix) {
        if (keyPrefix == null || keyPrefix.isBlank() || keyPrefix.contains("{") || keyPrefix.contains("}")) {
            throw new IllegalArgumentException("cluster key prefix must be non-blank and free of braces (they are "
                    + "added around the bulkhead name) but was '" + keyPrefix + "'");
        }
        return keyPrefix;
    }

    /**
     * Makes {@code bulkhead}'s {@code maxConcurrentCalls} the bound of every process that attaches a bulkhead of the
     * same name; its local limit becomes the permits leased by this process, 0 until the first lease arrives.
     * @throws IllegalArgumentException if the bulkhead cannot wait (its first call waits one Redis round trip), is
     * adaptive, or has a cluster bulkhead already
     */
    public ClusterBulkhead attach(Bulkhead bulkhead, ClusterConfig config) {
        Objects.requireNonNull(bulkhead, "bulkhead must not be null");
        Objects.requireNonNull(config, "config must not be null");
        String name = bulkhead.getName();
        if (bulkhead.isAdaptive()) {
            throw new IllegalArgumentException("Bulkhead '" + name + "' has an adaptive limit, which a cluster limit "
                    + "does not support yet: remove its adaptive settings or disable cluster");
        }
        if (bulkhead.getConfig().getQueueCapacity() == 0 || bulkhead.getConfig().getMaxWaitDuration().isZero()) {
            throw new IllegalArgumentException("Bulkhead '" + name + "' cannot wait (queueCapacity "
                    + bulkhead.getConfig().getQueueCapacity() + ", maxWaitDuration "
                    + bulkhead.getConfig().getMaxWaitDuration() + ") but a cluster bulkhead's calls wait for leases "
                    + "from Redis: allow at least one waiting call and a wait of a few milliseconds");
        }
        if (name.contains("{") || name.contains("}")) {
            throw new IllegalArgumentException("Bulkhead '" + name + "': a cluster bulkhead's name must not contain braces");
        }
        // Checked before the bulkhead's limit is taken over: a refused bulkhead keeps its own limit.
        if (bulkhead.isLimitLeased() || this.bulkheads.containsKey(name)) {
            throw alreadyClustered(name);
        }
        LeaseKeys keys = LeaseKeys.of(this.keyPrefix, name);
        ClusterBulkhead cluster;
        try {
            cluster = new ClusterBulkhead(bulkhead, config, new RedisLeases(this.scripts, keys, this.processId, config),
                    this.listener);
        }
        catch (IllegalStateException ex) {
            // Leased meanwhile by another attach of the same bulkhead.
            IllegalArgumentException refused = alreadyClustered(name);
            refused.initCause(ex);
            throw refused;
        }
        if (this.bulkheads.putIfAbsent(name, cluster) != null) {
            // Another bulkhead of the same name was attached meanwhile: this one gets its own limit back.
            cluster.discard();
            throw alreadyClustered(name);
        }
        this.messages.subscribe(keys.channel(), cluster::remoteSignal);
        cluster.start();
        return cluster;
    }

    private static IllegalArgumentException alreadyClustered(String name) {
        return new IllegalArgumentException("Bulkhead '" + name + "' already has a cluster limit; attach one bulkhead "
                + "per name and share it (a BulkheadRegistry returns the same bulkhead for a name)");
    }

    public Optional<ClusterBulkhead> find(String name) {
        return Optional.ofNullable(this.bulkheads.get(name));
    }

    public Collection<ClusterBulkhead> getAll() {
        return List.copyOf(this.bulkheads.values());
    }

    public String getKeyPrefix() {
        return this.keyPrefix;
    }

    /** This process's id in Redis: JVM name and a random suffix. */
    public String getProcessId() {
        return this.processId;
    }

    /**
     * Stops every cluster bulkhead (giving back unused leases) and the connections opened here. The bulkheads stop
     * together: with Redis away, closing takes at most one lease, however many bulkheads there are. Closing again
     * does nothing (Spring Boot's starter closes them before the connection factory stops, and again at destroy).
     */
    @Override
    public void close() {
        if (!this.closed.compareAndSet(false, true)) {
            return;
        }
        List<ClusterBulkhead> all = List.copyOf(this.bulkheads.values());
        all.forEach(ClusterBulkhead::stop);
        long longestLease = all.stream()
            .mapToLong((cluster) -> cluster.getConfig().getLeaseDuration().toNanos())
            .max()
            .orElse(0);
        long deadline = System.nanoTime() + longestLease;
        all.forEach((cluster) -> cluster.awaitStopped(deadline));
        this.messages.close();
        this.scripts.close();
    }
}
