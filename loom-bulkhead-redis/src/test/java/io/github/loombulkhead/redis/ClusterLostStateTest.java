package io.github.loombulkhead.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis losing some or all keys of a bulkhead while processes hold permits (an eviction, a key deleted by hand, a
 * restart without persistence): the bound holds, and no capacity is lost for good. Each test has its own redis-server.
 */
class ClusterLostStateTest {

    private static final ClusterConfig SHORT_LEASE = ClusterConfig.custom().leaseDuration(Duration.ofMillis(600)).build();

    private final List<Replica> replicas = new ArrayList<>();

    private final List<Thread> callers = new ArrayList<>();

    private RedisServer redis;

    private String prefix;

    @BeforeEach
    void start() {
        this.redis = RedisServer.start();
        this.prefix = "test-" + UUID.randomUUID();
    }

    @AfterEach
    void stop() throws InterruptedException {
        this.replicas.forEach(Replica::close);
        for (Thread caller : this.callers) {
            caller.join(Duration.ofSeconds(10));
        }
        this.redis.stop();
    }

    private Replica replica(int limit, ClusterConfig config) {
        Replica replica = new Replica(this.redis, this.prefix, "callee", limit, config);
        this.replicas.add(replica);
        return replica;
    }

    /** Starts {@code count} callers that each take a permit of {@code replica} and keep it; counts those that got one. */
    private AtomicInteger callers(Replica replica, int count) {
        AtomicInteger got = new AtomicInteger();
        for (int i = 0; i < count; i++) {
            this.callers.add(Thread.startVirtualThread(() -> {
                try {
                    replica.bulkhead.acquirePermit();
                    got.incrementAndGet();
                }
                catch (RuntimeException ex) {
                    // Rejected as shut-down when the replica closes.
                }
            }));
        }
        return got;
    }

    /**
     * As {@link #callers}, each caller trying again while {@code replica} rejects it with {@code cluster-unavailable}
     * (its fallback is {@code reject}: only permits leased from Redis count, never a local fallback share).
     */
    private AtomicInteger retryingCallers(Replica replica, int count) {
        AtomicInteger got = new AtomicInteger();
        for (int i = 0; i < count; i++) {
            this.callers.add(Thread.startVirtualThread(() -> {
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (System.nanoTime() - deadline < 0) {
                    try {
                        replica.bulkhead.acquirePermit();
                        got.incrementAndGet();
                        return;
                    }
                    catch (BulkheadRejectedException ex) {
                        if (ex.getReason() != RejectionReason.CLUSTER_UNAVAILABLE) {
                            return; // shut-down when the replica closes
                        }
                        sleepMillis(10);
                    }
                }
            }));
        }
        return got;
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Deletes one key of the bulkhead, as an {@code allkeys-*} eviction policy or an operator may. */
    private void delete(String part) {
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + this.redis.port());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            assertThat(connection.sync().del(this.prefix + ":{callee}:" + part)).as("keys deleted").isOne();
        }
        finally {
            client.shutdown();
        }
    }

    /** Waits until {@code replica} synced {@code syncs} more times with Redis. */
    private static void awaitSyncs(Replica replica, int syncs) {
        long from = replica.clusterBulkhead.getRenewalCount();
        await().atMost(Duration.ofSeconds(10)).until(() -> replica.clusterBulkhead.getRenewalCount() >= from + syncs);
    }

    @Test
    void theMetaKeyLostAloneGrantsNothingAboveTheLimit() {
        Replica a = replica(4, SHORT_LEASE);
        Replica b = replica(4, SHORT_LEASE);
        for (int i = 0; i < 4; i++) {
            a.bulkhead.acquirePermit(); // the whole limit in use in a until the end of the test
        }
        delete("meta");
        AtomicInteger got = callers(b, 4);
        // Past the settle period after the loss (one lease), with both processes renewing every 200 ms.
        await().pollDelay(Duration.ofMillis(1500)).until(() -> true);
        awaitSyncs(a, 2);
        awaitSyncs(b, 2);
        assertThat(4 + got.get()).as("permits in use across both processes, limit 4").isEqualTo(4);
        assertThat(b.clusterBulkhead.getClusterInFlight()).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            a.bulkhead.onComplete(0);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> got.get() == 4);
    }

    @Test
    void theHeldKeyLostAloneLosesNoCapacity() {
        Replica a = replica(4, SHORT_LEASE);
        Replica b = replica(4, SHORT_LEASE);
        for (int i = 0; i < 4; i++) {
            a.bulkhead.acquirePermit();
        }
        delete("held");
        awaitSyncs(a, 2); // a claims its 4 permits again
        for (int i = 0; i < 4; i++) {
            a.bulkhead.onComplete(0); // all 4 free cluster-wide
        }
        AtomicInteger got = callers(b, 4);
        await().atMost(Duration.ofSeconds(5)).until(() -> got.get() == 4);
        assertThat(b.clusterBulkhead.getClusterInFlight()).isEqualTo(4);
    }

    @Test
    void aRestartedRedisWaitsForTheProcessesWithALongerLeaseThanTheFirstCallersBeforeItGrantsAnything() {
        // A rolling deployment that shortens the lease: a renews every second (5 s lease), b every 100 ms (300 ms).
        permitsInUseSurviveARestartEmpty(ClusterConfig.ofDefaults(),
                ClusterConfig.custom().leaseDuration(Duration.ofMillis(300)).fallback(ClusterFallback.REJECT).build());
    }

    @Test
    void aRestartedRedisWaitsForEveryProcessBeforeItGrantsAnythingWhenTheLeasesAreEqual() {
        permitsInUseSurviveARestartEmpty(ClusterConfig.ofDefaults(),
                ClusterConfig.custom().fallback(ClusterFallback.REJECT).build());
    }

    /**
     * a uses the whole limit and b waits when Redis restarts empty, right after a renewed (so a renews next a whole
     * renewal period later, while b asks for permits every 50 ms): b gets nothing until a gives its permits back.
     */
    private void permitsInUseSurviveARestartEmpty(ClusterConfig holder, ClusterConfig waiter) {
        Replica a = replica(4, holder);
        Replica b = replica(4, waiter);
        for (int i = 0; i < 4; i++) {
            a.bulkhead.acquirePermit(); // the whole limit in use in a until it gives it back below
        }
        AtomicInteger got = retryingCallers(b, 4);
        await().atMost(Duration.ofSeconds(5)).until(() -> b.clusterBulkhead.getClusterInFlight() == 4
                && b.clusterBulkhead.getProcessCount() == 2);
        long renewals = a.clusterBulkhead.getRenewalCount();
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(2))
            .until(() -> a.clusterBulkhead.getRenewalCount() > renewals);
        this.redis.stop();
        this.redis.restart();
        // Past b's lease many times over, and past a's next renewals.
        sleepMillis(3000);
        awaitSyncs(a, 1);
        assertThat(4 + got.get()).as("permits in use across both processes, limit 4").isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            a.bulkhead.onComplete(0);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> got.get() == 4);
    }

    @Test
    void everyKeyOfABulkheadExpiresADayAfterTheLastScriptCall() {
        Replica a = replica(2, SHORT_LEASE);
        Replica b = replica(2, SHORT_LEASE);
        a.bulkhead.acquirePermit();
        a.bulkhead.acquirePermit();
        AtomicInteger got = callers(b, 1); // b waits: its want and its turn in the queue are stored too
        await().atMost(Duration.ofSeconds(5)).until(() -> b.clusterBulkhead.getRenewalCount() > 1);
        awaitSyncs(a, 1);
        awaitSyncs(b, 1);
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + this.redis.port());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            List<String> keys = connection.sync().keys(this.prefix + ":*");
            assertThat(keys).contains(this.prefix + ":{callee}:limit", this.prefix + ":{callee}:configured-limit",
                    this.prefix + ":{callee}:meta", this.prefix + ":{callee}:held", this.prefix + ":{callee}:expiry",
                    this.prefix + ":{callee}:want", this.prefix + ":{callee}:queue");
            long day = Duration.ofDays(1).toMillis();
            for (String key : keys) {
                assertThat(connection.sync().pttl(key)).as("milliseconds %s has to live", key)
                    .isBetween(day - Duration.ofMinutes(1).toMillis(), day);
            }
        }
        finally {
            client.shutdown();
        }
        assertThat(got).hasValue(0);
        a.bulkhead.onComplete(0);
        await().atMost(Duration.ofSeconds(5)).until(() -> got.get() == 1);
    }

    @Test
    void aStepForwardOfRedisClocksReapsNoLiveProcessAndGrantsNothingUntilTheProcessesRenewed() {
        Replica a = replica(4, ClusterConfig.ofDefaults());
        Replica b = replica(4, ClusterConfig.ofDefaults());
        for (int i = 0; i < 4; i++) {
            a.bulkhead.acquirePermit(); // the whole limit in use in a until it gives it back below
        }
        AtomicInteger got = callers(b, 4);
        await().atMost(Duration.ofSeconds(5)).until(() -> b.clusterBulkhead.getClusterInFlight() == 4
                && b.clusterBulkhead.getProcessCount() == 2);
        // What Redis's clock set a minute ahead looks like to the scripts: every expiry, and the time of the last
        // script call, a minute earlier than the clock now.
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + this.redis.port());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().eval("""
                    for _, process in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
                        redis.call('ZINCRBY', KEYS[1], -60000, process)
                    end
                    redis.call('HINCRBY', KEYS[2], 'now', -60000)
                    return 1""", ScriptOutputType.INTEGER, this.prefix + ":{callee}:expiry", this.prefix + ":{callee}:meta");
        }
        finally {
            client.shutdown();
        }
        sleepMillis(3000);
        awaitSyncs(a, 1);
        awaitSyncs(b, 1);
        assertThat(4 + got.get()).as("permits in use across both processes, limit 4").isEqualTo(4);
        assertThat(b.clusterBulkhead.getProcessCount()).isEqualTo(2);
        for (int i = 0; i < 4; i++) {
            a.bulkhead.onComplete(0);
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> got.get() == 4);
    }
}
