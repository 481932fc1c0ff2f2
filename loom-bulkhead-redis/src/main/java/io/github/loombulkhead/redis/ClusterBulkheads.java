package io.github.loombulkhead.redis;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.github.loombulkhead.Bulkhead;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The cluster bulkheads of one process against one Redis: each process gets an id, leases are kept under
 * {@code <keyPrefix>:{<bulkhead name>}:*}, and one pub/sub connection wakes the bulkheads when another process
 * released permits (a lost message costs at most a 50 ms poll, never a permit).
 *
 * <pre>
 * ClusterBulkheads cluster = ClusterBulkheads.create(redisConnectionFactory, "orders-service:prod");
 * cluster.attach(registry.bulkhead("inventory"), ClusterConfig.ofDefaults());
 * </pre>
 */
public final class ClusterBulkheads implements AutoCloseable {

    /** Default key prefix. */
    public static final String DEFAULT_KEY_PREFIX = "loom-bulkhead";

    private final StringRedisTemplate redis;

    private final String keyPrefix;

    private final String processId;

    private final RedisMessageListenerContainer messages;

    private final ClusterListener listener;

    private final Map<String, ClusterBulkhead> bulkheads = new ConcurrentHashMap<>();

    private ClusterBulkheads(RedisConnectionFactory connectionFactory, String keyPrefix, ClusterListener listener) {
        this.keyPrefix = requireKeyPrefix(keyPrefix);
        this.redis = new StringRedisTemplate(Objects.requireNonNull(connectionFactory, "connectionFactory must not be null"));
        this.processId = ManagementFactory.getRuntimeMXBean().getName() + "-" + UUID.randomUUID().toString().substring(0, 8);
        this.listener = Objects.requireNonNull(listener, "listener must not be null");
        this.messages = new RedisMessageListenerContainer();
        this.messages.setConnectionFactory(connectionFactory);
        this.messages.setRecoveryInterval(500);
        this.messages.afterPropertiesSet();
        this.messages.start();
    }

    /** Cluster bulkheads against the Redis of {@code connectionFactory}, with keys under {@code keyPrefix}. */
    public static ClusterBulkheads create(RedisConnectionFactory connectionFactory, String keyPrefix) {
        return new ClusterBulkheads(connectionFactory, keyPrefix, new ClusterListener() {
        });
    }

    /** As {@link #create(RedisConnectionFactory, String)}, with a listener for every cluster bulkhead's events. */
    public static ClusterBulkheads create(RedisConnectionFactory connectionFactory, String keyPrefix,
            ClusterListener listener) {
        return new ClusterBulkheads(connectionFactory, keyPrefix, listener);
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
        LeaseKeys keys = LeaseKeys.of(this.keyPrefix, name);
        ClusterBulkhead cluster = new ClusterBulkhead(bulkhead, config,
                new RedisLeases(this.redis, keys, this.processId, config), this.listener);
        if (this.bulkheads.putIfAbsent(name, cluster) != null) {
            throw new IllegalArgumentException("Bulkhead '" + name + "' already has a cluster limit");
        }
        try {
            this.messages.addMessageListener((message, pattern) -> cluster
                .remoteSignal(new String(message.getBody(), StandardCharsets.UTF_8)), new ChannelTopic(keys.channel()));
        }
        catch (RuntimeException ex) {
            // The container subscribes again once Redis is back; until then the governor polls.
            System.getLogger(ClusterBulkheads.class.getName()).log(System.Logger.Level.WARNING, "Cluster bulkhead '"
                    + name + "': cannot subscribe to " + keys.channel() + " yet, polling meanwhile: " + ex);
        }
        cluster.start();
        return cluster;
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

    /** Stops every cluster bulkhead (giving back unused leases) and the pub/sub connection. */
    @Override
    public void close() {
        this.bulkheads.values().forEach(ClusterBulkhead::close);
        try {
            this.messages.destroy();
        }
        catch (Exception ex) {
            System.getLogger(ClusterBulkheads.class.getName()).log(System.Logger.Level.DEBUG, "pub/sub container did not stop cleanly", ex);
        }
    }
}
