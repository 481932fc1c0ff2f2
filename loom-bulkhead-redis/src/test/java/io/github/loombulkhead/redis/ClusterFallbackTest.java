package io.github.loombulkhead.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/** What cluster bulkheads do while Redis is away, and after it comes back; each test has its own redis-server. */
class ClusterFallbackTest {

    private RedisServer redis;

    private Replica a;

    private Replica b;

    @BeforeEach
    void startRedis() {
        this.redis = RedisServer.start();
    }

    @AfterEach
    void stop() {
        if (this.a != null) {
            this.a.close();
        }
        if (this.b != null) {
            this.b.close();
        }
        this.redis.stop();
    }

    private void replicas(int limit, ClusterFallback fallback) {
        String prefix = "test-" + UUID.randomUUID();
        ClusterConfig config = ClusterConfig.custom().leaseDuration(Duration.ofSeconds(1)).fallback(fallback).build();
        this.a = new Replica(this.redis, prefix, "callee", limit, config);
        this.b = new Replica(this.redis, prefix, "callee", limit, config);
        // Both have synced once, so each knows two processes are alive.
        await().atMost(Duration.ofSeconds(5)).until(() -> this.a.clusterBulkhead.getProcessCount() == 2
                && this.b.clusterBulkhead.getProcessCount() == 2);
    }

    @Test
    void localFallbackEnforcesTheShareOfEachReplicaAndRedisTakesOverAgain() {
        replicas(6, ClusterFallback.LOCAL);
        this.a.bulkhead.acquirePermit();
        this.redis.stop();
        await().atMost(Duration.ofSeconds(5)).until(() -> this.a.clusterBulkhead.getMode() == ClusterMode.FALLBACK);
        // During the first lease the other replica may still use its leases: no more than was leased here.
        assertThat(this.a.bulkhead.getLimit()).isEqualTo(1);
        // Then 6 / 2 processes: 3 each, the call that held a lease included.
        await().atMost(Duration.ofSeconds(3)).until(() -> this.a.bulkhead.getLimit() == 3);
        assertThat(this.a.bulkhead.tryAcquirePermit()).isTrue();
        assertThat(this.a.bulkhead.tryAcquirePermit()).isTrue();
        assertThat(this.a.bulkhead.tryAcquirePermit()).isFalse();
        assertThat(this.a.clusterBulkhead.getErrorCount()).isPositive();

        this.redis.restart();
        await().atMost(Duration.ofSeconds(5)).until(() -> this.a.clusterBulkhead.getMode() == ClusterMode.CLUSTER);
        // The restarted Redis lost everything: the three calls still running are claimed again, not lost.
        await().atMost(Duration.ofSeconds(5)).until(() -> this.a.clusterBulkhead.getHeldPermits() == 3);
        // b claims its whole share when it comes back and gives back what it does not use at its next sync.
        await().atMost(Duration.ofSeconds(5)).until(() -> this.a.clusterBulkhead.getClusterInFlight() == 3);
        for (int i = 0; i < 3; i++) {
            this.a.bulkhead.onComplete(0);
        }
        // Given back, not counted twice.
        await().atMost(Duration.ofSeconds(5)).until(() -> this.a.clusterBulkhead.getHeldPermits() == 0);
        for (int i = 0; i < 6; i++) {
            this.b.bulkhead.acquirePermit();
        }
        assertThat(this.b.clusterBulkhead.getClusterInFlight()).isEqualTo(6);
        for (int i = 0; i < 6; i++) {
            this.b.bulkhead.onComplete(0);
        }
    }

    @Test
    void aLimitChangedAndChangedBackWhileRedisIsAwayEndsAtTheLastValueOnceItIsBack() {
        replicas(10, ClusterFallback.LOCAL);
        this.redis.stop();
        await().atMost(Duration.ofSeconds(5)).until(() -> this.a.clusterBulkhead.getMode() == ClusterMode.FALLBACK);
        // An operator's mistake corrected during the outage: the correction is what every replica ends with.
        this.a.bulkhead.changeLimit(20);
        this.a.bulkhead.changeLimit(10);
        this.redis.restart();
        await().atMost(Duration.ofSeconds(5)).until(() -> this.a.clusterBulkhead.getMode() == ClusterMode.CLUSTER
                && this.b.clusterBulkhead.getMode() == ClusterMode.CLUSTER);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(this.a.clusterBulkhead.getLimit()).isEqualTo(10);
            assertThat(this.a.bulkhead.getConfig().getMaxConcurrentCalls()).isEqualTo(10);
            assertThat(this.b.clusterBulkhead.getLimit()).isEqualTo(10);
        });
    }

    @Test
    void aRestartedRedisGrantsNothingNewUntilThePermitsInUseWereClaimedAgainWithRejectFallback() throws Exception {
        permitsInUseSurviveAQuickRestart(ClusterFallback.REJECT);
    }

    @Test
    void aRestartedRedisGrantsNothingNewUntilThePermitsInUseWereClaimedAgainWithLocalFallback() throws Exception {
        permitsInUseSurviveAQuickRestart(ClusterFallback.LOCAL);
    }

    /**
     * b holds the whole limit when Redis restarts empty, so quickly that b may not notice; a wants permits. The first
     * sync after the restart must not hand a what b still uses: a gets permits only when b gives them back.
     */
    private void permitsInUseSurviveAQuickRestart(ClusterFallback fallback) throws Exception {
        replicas(4, fallback);
        for (int i = 0; i < 4; i++) {
            this.b.bulkhead.acquirePermit();
        }
        long renewals = this.b.clusterBulkhead.getRenewalCount();
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(2))
            .until(() -> this.b.clusterBulkhead.getRenewalCount() > renewals);
        this.redis.stop();
        this.redis.restart();
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            callers.add(Thread.startVirtualThread(() -> acquireRetryingWhileUnavailable(this.a)));
        }
        // b claims its 4 permits again at its next renewals (every third of the 1 s lease), whether or not it noticed.
        long after = this.b.clusterBulkhead.getRenewalCount();
        await().atMost(Duration.ofSeconds(10)).until(() -> this.b.clusterBulkhead.getRenewalCount() >= after + 3
                && this.b.clusterBulkhead.getMode() == ClusterMode.CLUSTER);
        assertThat(this.a.bulkhead.getActiveCount()).as("permits a got while b held the whole limit").isZero();
        assertThat(this.b.bulkhead.getActiveCount()).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            this.b.bulkhead.onComplete(0);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> this.a.bulkhead.getActiveCount() == 4);
        for (Thread caller : callers) {
            caller.join(Duration.ofSeconds(10));
        }
        for (int i = 0; i < 4; i++) {
            this.a.bulkhead.onComplete(0);
        }
    }

    /** With {@code fallback: reject} a caller that met the outage is rejected; it tries again, for 10 s at most. */
    private static void acquireRetryingWhileUnavailable(Replica replica) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() - deadline < 0) {
            try {
                replica.bulkhead.acquirePermit();
                return;
            }
            catch (BulkheadRejectedException ex) {
                assertThat(ex.getReason()).isEqualTo(RejectionReason.CLUSTER_UNAVAILABLE);
                await().pollDelay(Duration.ofMillis(20)).until(() -> true);
            }
        }
    }

    @Test
    void rejectFallbackRejectsWithClusterUnavailableUntilRedisIsBack() {
        replicas(4, ClusterFallback.REJECT);
        this.redis.stop();
        await().atMost(Duration.ofSeconds(5)).until(() -> this.a.clusterBulkhead.getMode() == ClusterMode.FALLBACK);
        assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(this.a.bulkhead::acquirePermit)
            .satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.CLUSTER_UNAVAILABLE));
        assertThat(this.a.bulkhead.getRejectedCount(RejectionReason.CLUSTER_UNAVAILABLE)).isEqualTo(1);

        this.redis.restart();
        await().atMost(Duration.ofSeconds(5)).until(() -> this.a.clusterBulkhead.getMode() == ClusterMode.CLUSTER);
        this.a.bulkhead.acquirePermit();
        assertThat(this.a.clusterBulkhead.getHeldPermits()).isEqualTo(1);
        this.a.bulkhead.onComplete(0);
    }

    @Test
    void aProcessStartedWhileRedisIsAwaySubscribesToReleasedPermitsOnceItIsBack() {
        this.redis.stop();
        String prefix = "test-" + UUID.randomUUID();
        this.a = new Replica(this.redis, prefix, "callee", 3,
                ClusterConfig.custom().leaseDuration(Duration.ofSeconds(1)).fallback(ClusterFallback.REJECT).build());
        await().atMost(Duration.ofSeconds(5)).until(() -> this.a.clusterBulkhead.getMode() == ClusterMode.FALLBACK);

        this.redis.restart();
        await().atMost(Duration.ofSeconds(5)).until(() -> this.a.clusterBulkhead.getMode() == ClusterMode.CLUSTER);
        // The subscription that failed at startup is retried until it succeeds, once: not only polling from now on.
        String channel = LeaseKeys.of(prefix, "callee").channel();
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + this.redis.port());
        try (StatefulRedisConnection<String, String> probe = client.connect()) {
            await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(probe.sync().pubsubNumsub(channel)).containsEntry(channel, 1L));
        }
        finally {
            client.shutdown();
        }
    }
}
