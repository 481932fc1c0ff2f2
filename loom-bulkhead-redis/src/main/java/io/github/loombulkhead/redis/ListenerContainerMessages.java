package io.github.loombulkhead.redis;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/** Messages through Spring Data Redis's listener container, which subscribes again after Redis was away. */
final class ListenerContainerMessages implements LeaseMessages {

    private final RedisMessageListenerContainer container = new RedisMessageListenerContainer();

    ListenerContainerMessages(RedisConnectionFactory connectionFactory) {
        this.container.setConnectionFactory(connectionFactory);
        this.container.setRecoveryInterval(500);
        this.container.afterPropertiesSet();
        this.container.start();
    }

    @Override
    public void subscribe(String channel, Consumer<String> onMessage) {
        try {
            this.container.addMessageListener(
                    (message, pattern) -> onMessage.accept(new String(message.getBody(), StandardCharsets.UTF_8)),
                    new ChannelTopic(channel));
        }
        catch (RuntimeException ex) {
            // The container subscribes again once Redis is back; until then the governor polls.
            System.getLogger(ClusterBulkheads.class.getName()).log(System.Logger.Level.WARNING,
                    "cannot subscribe to " + channel + " yet, polling meanwhile: " + ex);
        }
    }

    @Override
    public void close() {
        try {
            this.container.destroy();
        }
        catch (Exception ex) {
            System.getLogger(ClusterBulkheads.class.getName()).log(System.Logger.Level.DEBUG, "pub/sub container did not stop cleanly", ex);
        }
    }
}
