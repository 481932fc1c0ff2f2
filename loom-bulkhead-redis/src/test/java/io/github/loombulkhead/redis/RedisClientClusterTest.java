package io.github.loombulkhead.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/** Cluster bulkheads built from a plain Lettuce {@link RedisClient}, against a real redis-server of their own. */
class RedisClientClusterTest {

    private RedisServer redis;

    private RedisClient client;

    private ClusterBulkheads plain;

    private Replica spring;

    @BeforeEach
    void start() {
        this.redis = RedisServer.start();
        // Short timeouts and no queueing while disconnected, so a stopped Redis is noticed within 500 ms.
        this.client = RedisClient.create(RedisURI.builder()
            .withHost("127.0.0.1")
            .withPort(this.redis.port())
            .withTimeout(Duration.ofMillis(500))
            .build());
        this.client.setOptions(ClientOptions.builder()
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .timeoutOptions(TimeoutOptions.enabled(Duration.ofMillis(500)))
            .build());
    }

    @AfterEach
    void stop() {
        if (this.plain != null) {
            this.plain.close();
        }
        if (this.spring != null) {
            this.spring.close();
        }
        this.client.shutdown();
        this.redis.stop();
    }

    private static Bulkhead bulkhead(int limit) {
        return new Bulkhead("callee", BulkheadConfig.custom().maxConcurrentCalls(limit).maxWaitDuration(Duration.ofSeconds(30)).build());
    }

    @Test
    void aRedisClientProcessSharesTheBoundWithAConnectionFactoryProcess() throws Exception {
        String prefix = "test-" + UUID.randomUUID();
        this.plain = ClusterBulkheads.create(this.client, prefix);
        Bulkhead bulkhead = bulkhead(2);
        ClusterBulkhead cluster = this.plain.attach(bulkhead, ClusterConfig.ofDefaults());
        this.spring = new Replica(this.redis, prefix, "callee", 2, ClusterConfig.ofDefaults());
        this.spring.bulkhead.acquirePermit();
        this.spring.bulkhead.acquirePermit();

        CountDownLatch got = new CountDownLatch(1);
        Thread waiting = Thread.startVirtualThread(() -> {
            bulkhead.acquirePermit();
            got.countDown();
        });
        // The bound (2) is held by the other process: this one waits.
        assertThat(got.await(300, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(bulkhead.tryAcquirePermit()).isFalse();
        this.spring.bulkhead.onComplete(0);
        assertThat(got.await(5, TimeUnit.SECONDS)).isTrue();
        waiting.join();
        assertThat(cluster.getHeldPermits()).isEqualTo(1);
        assertThat(cluster.getClusterInFlight()).isEqualTo(2);
        assertThat(cluster.getProcessCount()).isEqualTo(2);
        // Both processes listen for released permits on the bulkhead's channel.
        try (StatefulRedisConnection<String, String> probe = this.client.connect()) {
            String channel = LeaseKeys.of(prefix, "callee").channel();
            assertThat(probe.sync().pubsubNumsub(channel)).containsEntry(channel, 2L);
        }

        bulkhead.onComplete(0);
        this.spring.bulkhead.onComplete(0);
        this.plain.close();
        this.plain = null;
        // Closing gave the unused leases back: the other process gets the whole bound (2) long before a lease of
        // the closed one (5 s) could have expired.
        CountDownLatch whole = new CountDownLatch(2);
        Thread taking = Thread.startVirtualThread(() -> {
            this.spring.bulkhead.acquirePermit();
            whole.countDown();
            this.spring.bulkhead.acquirePermit();
            whole.countDown();
        });
        assertThat(whole.await(3, TimeUnit.SECONDS)).isTrue();
        taking.join();
        assertThat(this.spring.clusterBulkhead.getHeldPermits()).isEqualTo(2);
        this.spring.bulkhead.onComplete(0);
        this.spring.bulkhead.onComplete(0);
    }

    @Test
    void startsInItsFallbackWhileRedisIsAwayAndLeasesOnceItIsUp() throws Exception {
        this.redis.stop();
        String prefix = "test-" + UUID.randomUUID();
        this.plain = ClusterBulkheads.create(this.client, prefix);
        Bulkhead bulkhead = bulkhead(3);
        ClusterBulkhead cluster = this.plain.attach(bulkhead,
                ClusterConfig.custom().leaseDuration(Duration.ofSeconds(1)).fallback(ClusterFallback.REJECT).build());
        await().atMost(Duration.ofSeconds(5)).until(() -> cluster.getMode() == ClusterMode.FALLBACK);
        assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(bulkhead::acquirePermit)
            .satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.CLUSTER_UNAVAILABLE));

        this.redis.restart();
        await().atMost(Duration.ofSeconds(5)).until(() -> cluster.getMode() == ClusterMode.CLUSTER);
        bulkhead.acquirePermit();
        assertThat(cluster.getHeldPermits()).isEqualTo(1);
        // The pub/sub connection that failed at first is retried until it subscribes.
        try (StatefulRedisConnection<String, String> probe = this.client.connect()) {
            String channel = LeaseKeys.of(prefix, "callee").channel();
            await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(probe.sync().pubsubNumsub(channel)).containsEntry(channel, 1L));
        }
        bulkhead.onComplete(0);
    }
}
