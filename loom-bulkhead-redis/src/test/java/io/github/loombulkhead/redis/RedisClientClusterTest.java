package io.github.loombulkhead.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

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
    void aSubscriptionRefusedByAnAclLeaksNoConnectionWhileItIsRetried() throws Exception {
        // A user that may run the lease scripts but not subscribe: every subscription attempt connects, then fails.
        assertThat(this.redis.command("ACL SETUSER leases on >secret ~* &* +@all -subscribe -psubscribe"))
            .isEqualTo("+OK");
        RedisClient limited = RedisClient.create(RedisURI.builder()
            .withHost("127.0.0.1")
            .withPort(this.redis.port())
            .withAuthentication("leases", "secret")
            .withTimeout(Duration.ofMillis(500))
            .build());
        try {
            this.plain = ClusterBulkheads.create(limited, "test-" + UUID.randomUUID());
            ClusterBulkhead cluster = this.plain.attach(bulkhead(2), ClusterConfig.ofDefaults());
            await().atMost(Duration.ofSeconds(5)).until(() -> cluster.getRenewalCount() > 0);
            int before = clients();
            // Several retries, 500 ms apart.
            Thread.sleep(2_500);
            assertThat(clients()).as("connections after five refused subscriptions").isLessThanOrEqualTo(before + 1);
            this.plain.close();
            this.plain = null;
        }
        finally {
            limited.shutdown();
        }
    }

    private int clients() {
        String info;
        try (StatefulRedisConnection<String, String> connection = this.client.connect()) {
            info = connection.sync().info("clients");
        }
        java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("connected_clients:(\\d+)").matcher(info);
        assertThat(matcher.find()).as(info).isTrue();
        return Integer.parseInt(matcher.group(1));
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

    @Test
    void aLeaseHandedOverCountsTowardWhatTheProcessWants() {
        String prefix = "test-" + UUID.randomUUID();
        LeaseKeys keys = LeaseKeys.of(prefix, "callee");
        try (RedisClientScripts scripts = new RedisClientScripts(this.client);
                StatefulRedisConnection<String, String> probe = this.client.connect()) {
            RedisLeases holder = new RedisLeases(scripts, keys, "holder", ClusterConfig.ofDefaults());
            RedisLeases waiter = new RedisLeases(scripts, keys, "waiter", ClusterConfig.ofDefaults());
            // Attached, as every process is before its first sync.
            assertThat(holder.init(2)).isEqualTo(2);
            assertThat(holder.sync(0, 2, 2).held()).isEqualTo(2);
            assertThat(waiter.sync(0, 1, 2).held()).isZero();
            // The holder's release hands the waiter its permit before the waiter looks again, still asking for one.
            holder.sync(1, 0, 2);
            LeaseState granted = waiter.sync(0, 1, 2);
            assertThat(granted.held()).isEqualTo(1);
            assertThat(probe.sync().hget(keys.want(), "waiter")).isNull();
            assertThat(probe.sync().zscore(keys.queue(), "waiter")).isNull();
            // So the holder's next release goes back to the pool, not to a waiter that wants nothing more.
            LeaseState released = holder.sync(0, 0, 2);
            assertThat(released.clusterHeld()).isEqualTo(1);
            assertThat(waiter.sync(1, 0, 2).held()).isEqualTo(1);
        }
    }

    @Test
    void closingGivesBackALeaseAnotherProcessHandedOverJustBeforeTheLastSync() throws Exception {
        String prefix = "test-" + UUID.randomUUID();
        LeaseKeys keys = LeaseKeys.of(prefix, "callee");
        ClusterConfig config = ClusterConfig.ofDefaults();
        try (RedisClientScripts scripts = new RedisClientScripts(this.client);
                RedisClientScripts otherScripts = new RedisClientScripts(this.client);
                StatefulRedisConnection<String, String> probe = this.client.connect()) {
            RedisLeases other = new RedisLeases(otherScripts, keys, "other", config);
            assertThat(other.init(2)).isEqualTo(2);
            assertThat(other.sync(0, 2, 2).held()).isEqualTo(2);
            AtomicBoolean releaseFirst = new AtomicBoolean();
            // Right before the closing process's last sync (keeping nothing, wanting nothing), the other process
            // releases one permit, which Redis hands to the closing process's queued want.
            ScriptRunner handingOver = new DelegatingScripts(scripts) {
                @Override
                public CompletableFuture<Object> run(LeaseScript script, List<String> keys, List<String> args) {
                    if (script == LeaseScript.SYNC && args.get(1).equals("0") && args.get(2).equals("0")
                            && releaseFirst.getAndSet(false)) {
                        other.sync(1, 0, 2);
                    }
                    return super.run(script, keys, args);
                }
            };
            Bulkhead bulkhead = bulkhead(2);
            ClusterBulkhead closing = new ClusterBulkhead(bulkhead, config, new RedisLeases(handingOver, keys, "closing", config),
                    new ClusterListener() {
                    });
            closing.start();
            Thread waiting = Thread.startVirtualThread(() -> acquireUntilInterrupted(bulkhead));
            await().atMost(Duration.ofSeconds(5)).until(() -> "1".equals(probe.sync().hget(keys.want(), "closing")));

            releaseFirst.set(true);
            closing.close();
            assertThat(releaseFirst).isFalse();
            assertThat(probe.sync().hget(keys.held(), "closing")).isNull();
            assertThat(closing.getHeldPermits()).isZero();
            assertThat(bulkhead.getLimit()).isZero();
            assertThat(other.sync(1, 1, 2).held()).isEqualTo(2);
            waiting.interrupt();
            waiting.join();
        }
    }

    @Test
    void aLeaseGrantedToACallerAfterCloseIsGivenBack() throws Exception {
        String prefix = "test-" + UUID.randomUUID();
        LeaseKeys keys = LeaseKeys.of(prefix, "callee");
        ClusterConfig config = ClusterConfig.ofDefaults();
        RedisClient patient = RedisClient.create(RedisURI.builder()
            .withHost("127.0.0.1")
            .withPort(this.redis.port())
            .withTimeout(Duration.ofSeconds(10))
            .build());
        try (RedisClientScripts scripts = new RedisClientScripts(patient);
                StatefulRedisConnection<String, String> probe = this.client.connect()) {
            CompletableFuture<Void> replyHeld = new CompletableFuture<>();
            CountDownLatch asked = new CountDownLatch(1);
            // The caller's script asking for the first lease runs in Redis at once; its reply is held back until
            // the process is closing.
            ScriptRunner slowReply = new DelegatingScripts(scripts) {
                @Override
                public CompletableFuture<Object> run(LeaseScript script, List<String> keys, List<String> args) {
                    CompletableFuture<Object> reply = super.run(script, keys, args);
                    if (script == LeaseScript.SYNC && !args.get(2).equals("0") && asked.getCount() > 0) {
                        asked.countDown();
                        return reply.thenCombine(replyHeld, (result, ignored) -> result);
                    }
                    return reply;
                }
            };
            Bulkhead bulkhead = bulkhead(2);
            ClusterBulkhead closing = new ClusterBulkhead(bulkhead, config, new RedisLeases(slowReply, keys, "closing", config),
                    new ClusterListener() {
                    });
            closing.start();
            // The first sync tells the caller the process holds nothing: a call that queues asks itself.
            await().atMost(Duration.ofSeconds(5)).until(() -> closing.getRenewalCount() > 0);
            AtomicBoolean ran = new AtomicBoolean();
            Thread waiting = Thread.startVirtualThread(() -> ran.set(acquireUntilInterrupted(bulkhead)));
            assertThat(asked.await(5, TimeUnit.SECONDS)).isTrue();
            // Redis granted the lease; the process has not heard yet.
            await().atMost(Duration.ofSeconds(5)).until(() -> "1".equals(probe.sync().hget(keys.held(), "closing")));
            assertThat(bulkhead.getLimit()).isZero();

            Thread closer = Thread.ofPlatform().start(closing::close);
            // Closed and waiting for the governor, which waits for the caller's script call.
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                .until(() -> closer.getState() == Thread.State.TIMED_WAITING);
            replyHeld.complete(null);
            closer.join(10_000);
            assertThat(closer.isAlive()).isFalse();
            assertThat(probe.sync().hget(keys.held(), "closing")).isNull();
            assertThat(closing.getHeldPermits()).isZero();
            assertThat(bulkhead.getActiveCount()).isZero();
            waiting.interrupt();
            waiting.join();
            if (ran.get()) {
                bulkhead.onComplete(0);
            }
            assertThat(ran).isFalse();
        }
        finally {
            patient.shutdown();
        }
    }

    @Test
    void afterItsTurnAProcessPassesThePermitAboveItsShareToNoWaitingCallAlsoWhenItsCallEndsDuringASync()
            throws Exception {
        LeaseKeys keys = LeaseKeys.of("test-" + UUID.randomUUID(), "callee");
        ClusterConfig config = ClusterConfig.ofDefaults();
        try (RedisClientScripts scripts = new RedisClientScripts(this.client);
                RedisClientScripts otherScripts = new RedisClientScripts(this.client);
                StatefulRedisConnection<String, String> probe = this.client.connect()) {
            Bulkhead bulkhead = bulkhead(3);
            AtomicBoolean endCallFirst = new AtomicBoolean();
            CountDownLatch ended = new CountDownLatch(1);
            // Right before a sync that still counts the permit above the share as in use, the call using it ends.
            ScriptRunner callEndsDuringSync = new DelegatingScripts(scripts) {
                @Override
                public CompletableFuture<Object> run(LeaseScript script, List<String> keys, List<String> args) {
                    if (script == LeaseScript.SYNC && args.get(1).equals("2") && endCallFirst.getAndSet(false)) {
                        bulkhead.onComplete(0);
                        ended.countDown();
                    }
                    return super.run(script, keys, args);
                }
            };
            ClusterBulkhead cluster = new ClusterBulkhead(bulkhead, config,
                    new RedisLeases(callEndsDuringSync, keys, "turn", config), new ClusterListener() {
                    });
            cluster.start();
            bulkhead.acquirePermit();
            bulkhead.acquirePermit();
            // Another process takes the third permit and waits for one more: a limit of 3 over two processes, a
            // share of 1 each and the third permit going round.
            RedisLeases other = new RedisLeases(otherScripts, keys, "other", config);
            assertThat(other.sync(0, 1, 3).held()).isEqualTo(1);
            assertThat(other.sync(1, 1, 3).othersWaiting()).isZero();
            // This process hears of it at its next sync, and its turn with the permit above the share ends: the
            // local limit is the share, while both calls still run.
            await().atMost(Duration.ofSeconds(5)).until(() -> bulkhead.getLimit() == 1);
            assertThat(cluster.getHeldPermits()).isEqualTo(2);
            AtomicBoolean ran = new AtomicBoolean();
            Thread waiting = Thread.startVirtualThread(() -> ran.set(acquireUntilInterrupted(bulkhead)));
            await().atMost(Duration.ofSeconds(5)).until(() -> bulkhead.getWaitingCount() == 1);

            endCallFirst.set(true);
            assertThat(ended.await(5, TimeUnit.SECONDS)).isTrue();
            // The permit goes back to Redis, which hands it to the other process waiting for it; not to the call
            // waiting here.
            await().atMost(Duration.ofSeconds(3))
                .until(() -> ran.get() || "1".equals(probe.sync().hget(keys.pending(), "other")));
            assertThat(ran).as("a call ran on the permit above the share after the turn").isFalse();
            assertThat(bulkhead.getLimit()).isEqualTo(1);
            cluster.close();
            waiting.join(5_000);
            if (ran.get()) {
                bulkhead.onComplete(0);
            }
            bulkhead.onComplete(0);
        }
    }

    /** Takes a permit and keeps it; returns false when interrupted while waiting. */
    private static boolean acquireUntilInterrupted(Bulkhead bulkhead) {
        try {
            bulkhead.acquirePermit();
            return true;
        }
        catch (BulkheadRejectedException ex) {
            return false;
        }
    }

    /** Runs scripts through another runner; tests step in before a script or its reply. */
    private static class DelegatingScripts implements ScriptRunner {

        private final ScriptRunner delegate;

        DelegatingScripts(ScriptRunner delegate) {
            this.delegate = delegate;
        }

        @Override
        public CompletableFuture<Object> run(LeaseScript script, List<String> keys, List<String> args) {
            return this.delegate.run(script, keys, args);
        }

        @Override
        public boolean async() {
            return this.delegate.async();
        }

        @Override
        public long timeoutMillis() {
            return this.delegate.timeoutMillis();
        }

        @Override
        public void close() {
            this.delegate.close();
        }
    }
}
