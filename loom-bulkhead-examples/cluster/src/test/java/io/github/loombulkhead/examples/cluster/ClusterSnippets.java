package io.github.loombulkhead.examples.cluster;

import java.time.Duration;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.redis.ClusterBulkheads;
import io.github.loombulkhead.redis.ClusterConfig;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The plain-Java setups of cluster bulkheads shown in README.md and docs/cluster.md. */
final class ClusterSnippets {

    private ClusterSnippets() {
    }

    /** A connection factory as an application without Spring Boot builds it: short timeouts, no queueing while down. */
    static LettuceConnectionFactory connectionFactory(String host, int port) {
        // tag::connection-factory[]
        LettuceClientConfiguration shortTimeouts = LettuceClientConfiguration.builder()
            .commandTimeout(Duration.ofMillis(500))
            .clientOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build())
            .build();
        LettuceConnectionFactory redisConnectionFactory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(host, port), shortTimeouts);
        redisConnectionFactory.afterPropertiesSet();
        // end::connection-factory[]
        return redisConnectionFactory;
    }

    static ClusterBulkheads fromConnectionFactory(RedisConnectionFactory redisConnectionFactory,
            BulkheadRegistry registry) {
        // tag::from-connection-factory[]
        ClusterBulkheads cluster = ClusterBulkheads.create(redisConnectionFactory, "orders:prod");
        cluster.attach(registry.bulkhead("inventory"), ClusterConfig.ofDefaults());
        // end::from-connection-factory[]
        return cluster;
    }

    /** A cluster built from a Lettuce client, and the client, which stays the caller's to shut down. */
    record FromRedisClient(RedisClient redis, ClusterBulkheads cluster) implements AutoCloseable {

        @Override
        public void close() {
            this.cluster.close();
            this.redis.shutdown();
        }
    }

    static FromRedisClient fromRedisClient(String host, int port, BulkheadRegistry registry) {
        // tag::from-redis-client[]
        RedisClient redis = RedisClient.create(RedisURI.builder()
            .withHost(host)
            .withPort(port)
            .withTimeout(Duration.ofMillis(500))
            .build());
        redis.setOptions(ClientOptions.builder()
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .build());
        ClusterBulkheads cluster = ClusterBulkheads.create(redis, "orders:prod");
        cluster.attach(registry.bulkhead("inventory"), ClusterConfig.ofDefaults());
        // end::from-redis-client[]
        return new FromRedisClient(redis, cluster);
    }
}
