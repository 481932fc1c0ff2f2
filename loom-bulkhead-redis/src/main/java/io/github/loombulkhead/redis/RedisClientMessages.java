package io.github.loombulkhead.redis;

import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * Messages on a pub/sub connection of its own from a Lettuce {@link RedisClient}, which subscribes again after a
 * reconnect. While the first connect fails it is retried every 500 ms on a virtual thread; the governors poll meanwhile.
 */
final class RedisClientMessages implements LeaseMessages {

    private static final System.Logger logger = System.getLogger(ClusterBulkheads.class.getName());

    private final RedisClient client;

    private final Map<String, Consumer<String>> listeners = new ConcurrentHashMap<>();

    private final ReentrantLock lock = new ReentrantLock();

    private final SubscribeRetry retry = new SubscribeRetry(this.lock, this::tryConnect);

    /** Guarded by lock. */
    private StatefulRedisPubSubConnection<String, String> connection;

    private volatile boolean closed;

    RedisClientMessages(RedisClient client) {
        this.client = client;
    }

    @Override
    public void subscribe(String channel, Consumer<String> onMessage) {
        this.listeners.put(channel, onMessage);
        this.lock.lock();
        try {
            if (this.connection != null) {
                this.connection.async().subscribe(channel);
            }
            else if (!tryConnect()) {
                this.retry.start();
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Guarded by lock: connects and subscribes to every channel so far. */
    private boolean tryConnect() {
        if (this.closed) {
            return true;
        }
        StatefulRedisPubSubConnection<String, String> opened = null;
        try {
            opened = this.client.connectPubSub();
            opened.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    Consumer<String> listener = RedisClientMessages.this.listeners.get(channel);
                    if (listener != null) {
                        listener.accept(message);
                    }
                }
            });
            opened.sync().subscribe(this.listeners.keySet().toArray(String[]::new));
            this.connection = opened;
            return true;
        }
        catch (RuntimeException ex) {
            if (opened != null) {
                // Connected, but the subscription failed (no pub/sub permission, a timeout): the retry opens anew.
                opened.closeAsync();
            }
            logger.log(Level.WARNING, "cannot subscribe to cluster bulkhead messages yet, polling meanwhile: " + ex);
            return false;
        }
    }

    @Override
    public void close() {
        this.closed = true;
        this.retry.stop();
        this.lock.lock();
        try {
            if (this.connection != null) {
                this.connection.close();
            }
        }
        finally {
            this.lock.unlock();
        }
    }
}
