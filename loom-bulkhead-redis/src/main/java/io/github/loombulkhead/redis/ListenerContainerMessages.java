package io.github.loombulkhead.redis;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Messages through Spring Data Redis's listener container, which subscribes again when a subscription it had is lost.
 * A subscription that fails at first (Redis not up yet) is not retried by the container: it is retried here every
 * 500 ms on a virtual thread until it succeeds, and the governors poll meanwhile.
 */
final class ListenerContainerMessages implements LeaseMessages {

    private static final System.Logger logger = System.getLogger(ClusterBulkheads.class.getName());

    private final RedisMessageListenerContainer container = new RedisMessageListenerContainer();

    private final ReentrantLock lock = new ReentrantLock();

    /** Guarded by lock: the subscriptions that failed so far, by channel, retried until they succeed. */
    private final Map<String, MessageListener> pending = new LinkedHashMap<>();

    private final SubscribeRetry retry = new SubscribeRetry(this.lock, () -> this.closed || retryPending());

    /** Set before the lock is taken at close, so a retry under way stops at once. */
    private volatile boolean closed;

    ListenerContainerMessages(RedisConnectionFactory connectionFactory) {
        this.container.setConnectionFactory(connectionFactory);
        this.container.setRecoveryInterval(500);
        this.container.afterPropertiesSet();
        this.container.start();
    }

    @Override
    public void subscribe(String channel, Consumer<String> onMessage) {
        MessageListener listener = (message, pattern) -> onMessage
            .accept(new String(message.getBody(), StandardCharsets.UTF_8));
        this.lock.lock();
        try {
            if (this.closed) {
                return;
            }
            try {
                this.container.addMessageListener(listener, new ChannelTopic(channel));
            }
            catch (RuntimeException ex) {
                logger.log(Level.WARNING, "cannot subscribe to " + channel + " yet, polling meanwhile and trying again "
                        + "every " + SubscribeRetry.RETRY_MILLIS + " ms: " + ex);
                this.pending.put(channel, listener);
                this.retry.start();
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Guarded by lock: subscribes the pending channels in order, up to the first that fails again. Returns whether
     * none is left.
     */
    private boolean retryPending() {
        Iterator<Map.Entry<String, MessageListener>> each = this.pending.entrySet().iterator();
        while (each.hasNext()) {
            Map.Entry<String, MessageListener> subscription = each.next();
            ChannelTopic topic = new ChannelTopic(subscription.getKey());
            try {
                // A failed subscription stays registered in the container: removed first, so the listener is never
                // registered twice (it would hear every message twice).
                this.container.removeMessageListener(subscription.getValue(), topic);
                this.container.addMessageListener(subscription.getValue(), topic);
            }
            catch (RuntimeException ex) {
                logger.log(Level.DEBUG, () -> "cannot subscribe to " + subscription.getKey() + " yet: " + ex);
                return false;
            }
            each.remove();
            logger.log(Level.INFO, () -> "subscribed to " + subscription.getKey() + ", Redis is reachable again");
        }
        return true;
    }

    @Override
    public void close() {
        this.closed = true;
        this.retry.stop();
        this.lock.lock();
        try {
            this.pending.clear();
            this.container.destroy();
        }
        catch (Exception ex) {
            logger.log(Level.DEBUG, "pub/sub container did not stop cleanly", ex);
        }
        finally {
            this.lock.unlock();
        }
    }
}
