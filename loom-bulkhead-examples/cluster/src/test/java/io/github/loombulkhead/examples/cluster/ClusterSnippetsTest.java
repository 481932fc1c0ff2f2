package io.github.loombulkhead.examples.cluster;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.redis.ClusterBulkheads;
import io.github.loombulkhead.redis.ClusterMode;
import io.github.loombulkhead.redis.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runs both plain-Java setups of docs/cluster.md against a real redis-server: a process built from a Spring Data
 * Redis connection factory and one built from a Lettuce {@code RedisClient} share the bound of {@code inventory}.
 */
class ClusterSnippetsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private RedisServer redis;

    private LettuceConnectionFactory factory;

    private ClusterBulkheads fromFactory;

    private ClusterSnippets.FromRedisClient fromClient;

    @BeforeEach
    void startRedis() {
        this.redis = RedisServer.start();
    }

    @AfterEach
    void stop() {
        if (this.fromClient != null) {
            this.fromClient.close();
        }
        if (this.fromFactory != null) {
            this.fromFactory.close();
        }
        if (this.factory != null) {
            this.factory.destroy();
        }
        this.redis.close();
    }

    @Test
    void bothSetupsShareOneBound() throws Exception {
        BulkheadConfig limitOfTwo = BulkheadConfig.custom().maxConcurrentCalls(2).maxWaitDuration(WAIT).build();
        BulkheadRegistry first = BulkheadRegistry.builder().defaultConfig(limitOfTwo).build();
        BulkheadRegistry second = BulkheadRegistry.builder().defaultConfig(limitOfTwo).build();
        this.factory = ClusterSnippets.connectionFactory("127.0.0.1", this.redis.port());
        this.fromFactory = ClusterSnippets.fromConnectionFactory(this.factory, first);
        this.fromClient = ClusterSnippets.fromRedisClient("127.0.0.1", this.redis.port(), second);
        await().atMost(WAIT).until(() -> this.fromFactory.find("inventory").orElseThrow().getMode() == ClusterMode.CLUSTER
                && this.fromClient.cluster().find("inventory").orElseThrow().getMode() == ClusterMode.CLUSTER);

        Bulkhead inventory = first.bulkhead("inventory");
        inventory.acquirePermit();
        inventory.acquirePermit();
        // The bound (2) is held by the first process: the second waits until one permit comes back.
        Bulkhead other = second.bulkhead("inventory");
        CountDownLatch got = new CountDownLatch(1);
        Thread waiting = Thread.startVirtualThread(() -> {
            other.acquirePermit();
            got.countDown();
        });
        assertThat(got.await(300, TimeUnit.MILLISECONDS)).isFalse();
        inventory.onComplete(0);
        assertThat(got.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        waiting.join();
        assertThat(this.fromClient.cluster().find("inventory").orElseThrow().getClusterInFlight()).isEqualTo(2);
        other.onComplete(0);
        inventory.onComplete(0);
    }

    @Test
    void bothSetupsSwitchToTheFallbackSoonAfterRedisGoesAway() {
        BulkheadRegistry first = BulkheadRegistry.builder().build();
        BulkheadRegistry second = BulkheadRegistry.builder().build();
        this.factory = ClusterSnippets.connectionFactory("127.0.0.1", this.redis.port());
        this.fromFactory = ClusterSnippets.fromConnectionFactory(this.factory, first);
        this.fromClient = ClusterSnippets.fromRedisClient("127.0.0.1", this.redis.port(), second);
        await().atMost(WAIT).until(() -> this.fromFactory.find("inventory").orElseThrow().getMode() == ClusterMode.CLUSTER
                && this.fromClient.cluster().find("inventory").orElseThrow().getMode() == ClusterMode.CLUSTER);

        this.redis.stop();
        // With Lettuce's defaults (commands queued while disconnected, 60 s timeout) this would take a minute.
        await().atMost(WAIT).until(() -> this.fromFactory.find("inventory").orElseThrow().getMode() == ClusterMode.FALLBACK
                && this.fromClient.cluster().find("inventory").orElseThrow().getMode() == ClusterMode.FALLBACK);
    }
}
