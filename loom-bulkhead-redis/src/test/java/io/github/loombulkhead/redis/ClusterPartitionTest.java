package io.github.loombulkhead.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A process cut off from Redis without an error (its packets dropped, no reset) while its client's timeout is far
 * longer than the lease: it must stop admitting calls on its leases once they may have gone to another process,
 * not only when the client gives up.
 */
class ClusterPartitionTest {

    /** Long enough that the margin between falling back and the leases' expiry (a tenth) outlasts a busy scheduler. */
    private static final Duration LEASE = Duration.ofSeconds(3);

    private RedisServer redis;

    private BlackholeProxy proxy;

    private RedisClient client;

    private ClusterBulkheads cutOff;

    private Replica other;

    @BeforeEach
    void start() throws IOException {
        this.redis = RedisServer.start();
        this.proxy = new BlackholeProxy(this.redis.port());
    }

    @AfterEach
    void stop() throws IOException {
        try {
            if (this.other != null) {
                this.other.close();
            }
            if (this.cutOff != null) {
                this.proxy.heal();
                this.cutOff.close();
            }
        }
        finally {
            if (this.client != null) {
                this.client.shutdown();
            }
            this.proxy.close();
            this.redis.stop();
        }
    }

    @Test
    void aProcessCutOffWithoutAnErrorStopsAdmittingCallsWhenItsLeasesMayHaveGone() throws InterruptedException {
        String prefix = "partition-" + UUID.randomUUID();
        ClusterConfig config = ClusterConfig.custom().leaseDuration(LEASE).fallback(ClusterFallback.REJECT).build();
        this.client = patientClient(this.proxy.port());
        this.client.setOptions(ClientOptions.builder()
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .build());
        this.cutOff = ClusterBulkheads.create(this.client, prefix);
        Bulkhead a = new Bulkhead("callee", BulkheadConfig.custom()
            .maxConcurrentCalls(4)
            .maxWaitDuration(Duration.ofSeconds(30))
            .build());
        ClusterBulkhead aCluster = this.cutOff.attach(a, config);
        this.other = new Replica(this.redis, prefix, "callee", 4, config);
        Bulkhead b = this.other.bulkhead;
        for (int i = 0; i < 4; i++) {
            a.acquirePermit();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> this.other.clusterBulkhead.getProcessCount() == 2);

        this.proxy.blackhole();
        List<Thread> waiting = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 4; i++) {
            waiting.add(Thread.startVirtualThread(b::acquirePermit));
        }
        // Redis reaps a's leases a lease after its last renewal and hands them to b.
        await().atMost(Duration.ofSeconds(15)).until(() -> b.getActiveCount() == 4);
        // a knew as much: it fell back before that, although its client would wait 20 s for an answer.
        assertThat(aCluster.getMode()).isEqualTo(ClusterMode.FALLBACK);
        for (int i = 0; i < 4; i++) {
            a.onComplete(0);
        }
        int admitted = 0;
        for (int i = 0; i < 4; i++) {
            admitted += a.tryAcquirePermit() ? 1 : 0;
        }
        assertThat(admitted).as("calls a admitted on leases b holds now").isZero();
        for (int i = 0; i < 4; i++) {
            b.onComplete(0);
        }
        for (Thread thread : waiting) {
            assertThat(thread.join(Duration.ofSeconds(10))).isTrue();
        }
    }

    @Test
    void aGrantWhoseReplyArrivesAfterTheLeaseIsNotUsed() {
        String prefix = "late-" + UUID.randomUUID();
        ClusterConfig config = ClusterConfig.custom().leaseDuration(LEASE).fallback(ClusterFallback.REJECT).build();
        this.client = patientClient(this.redis.port());
        RedisClientScripts scripts = new RedisClientScripts(this.client);
        CompletableFuture<Void> replyHeld = new CompletableFuture<>();
        CountDownLatch asked = new CountDownLatch(1);
        // The first reply that grants a permit is held back until the test lets it through.
        ScriptRunner slowToGrant = new ScriptRunner() {

            @Override
            public CompletableFuture<Object> run(LeaseScript script, List<String> keys, List<String> args) {
                CompletableFuture<Object> reply = scripts.run(script, keys, args);
                if (script == LeaseScript.SYNC && !args.get(2).equals("0") && asked.getCount() > 0) {
                    asked.countDown();
                    return reply.thenCombine(replyHeld, (result, ignored) -> result);
                }
                return reply;
            }

            @Override
            public boolean async() {
                return true;
            }

            @Override
            public long timeoutMillis() {
                return scripts.timeoutMillis();
            }

            @Override
            public void close() {
                scripts.close();
            }
        };
        Bulkhead a = new Bulkhead("callee", BulkheadConfig.custom()
            .maxConcurrentCalls(2)
            .maxWaitDuration(Duration.ofSeconds(30))
            .build());
        ClusterBulkhead late = new ClusterBulkhead(a, config,
                new RedisLeases(slowToGrant, LeaseKeys.of(prefix, "callee"), "late", config), new ClusterListener() {
                });
        try {
            late.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> late.getRenewalCount() > 0);
            this.other = new Replica(this.redis, prefix, "callee", 2, config);
            Bulkhead b = this.other.bulkhead;
            await().atMost(Duration.ofSeconds(5)).until(() -> this.other.clusterBulkhead.getRenewalCount() > 0);
            Thread.startVirtualThread(a::acquirePermit);
            await().atMost(Duration.ofSeconds(5)).until(() -> asked.getCount() == 0);
            Thread.startVirtualThread(b::acquirePermit);
            Thread.startVirtualThread(b::acquirePermit);
            // Redis reaps the grant nobody renewed and hands both permits to b.
            await().atMost(Duration.ofSeconds(15)).until(() -> b.getActiveCount() == 2);
            replyHeld.complete(null);
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                .until(() -> a.getActiveCount() == 0 && b.getActiveCount() == 2);
            b.onComplete(0);
            b.onComplete(0);
            // What a still wants, it gets afresh.
            await().atMost(Duration.ofSeconds(10)).until(() -> a.getActiveCount() == 1);
            a.onComplete(0);
        }
        finally {
            late.close();
            scripts.close();
        }
    }

    @Test
    void closingManyBulkheadsCutOffFromRedisTakesOneLeaseNotOnePerBulkhead() {
        String prefix = "close-" + UUID.randomUUID();
        Duration lease = Duration.ofSeconds(1);
        ClusterConfig config = ClusterConfig.custom().leaseDuration(lease).build();
        this.client = patientClient(this.proxy.port());
        ClusterBulkheads cluster = ClusterBulkheads.create(this.client, prefix);
        List<ClusterBulkhead> attached = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 5; i++) {
            Bulkhead bulkhead = new Bulkhead("callee-" + i, BulkheadConfig.custom()
                .maxConcurrentCalls(2)
                .maxWaitDuration(Duration.ofSeconds(30))
                .build());
            attached.add(cluster.attach(bulkhead, config));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> attached.stream().allMatch((c) -> c.getRenewalCount() > 0));
        this.proxy.blackhole();

        // Each governor waits for a reply that never comes (the client would wait 20 s): closing gives up on each
        // after one lease, when the leases are gone anyway. One after another, five would hold up the shutdown 5 s.
        long start = System.nanoTime();
        cluster.close();
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(took).as("closing 5 cluster bulkheads cut off from Redis, each with a lease of " + lease)
            .isLessThan(lease.multipliedBy(3));
        assertThat(attached).allSatisfy((c) -> assertThat(c.getBulkhead().getLimit()).isZero());
    }

    /** A Lettuce client that waits 20 s for a reply: far longer than the lease. */
    private static RedisClient patientClient(int port) {
        return RedisClient.create(RedisURI.builder()
            .withHost("127.0.0.1")
            .withPort(port)
            .withTimeout(Duration.ofSeconds(20))
            .build());
    }

    /** Forwards TCP to Redis; once {@link #blackhole()}d it drops every byte without closing anything. */
    private static final class BlackholeProxy implements AutoCloseable {

        private final ServerSocket server;

        private final List<Socket> sockets = new CopyOnWriteArrayList<>();

        private volatile boolean dropping;

        BlackholeProxy(int target) throws IOException {
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread.ofVirtual().start(() -> {
                while (!this.server.isClosed()) {
                    try {
                        Socket in = this.server.accept();
                        Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
                        this.sockets.add(in);
                        this.sockets.add(out);
                        pump(in, out);
                        pump(out, in);
                    }
                    catch (IOException ex) {
                        return;
                    }
                }
            });
        }

        int port() {
            return this.server.getLocalPort();
        }

        void blackhole() {
            this.dropping = true;
        }

        void heal() throws IOException {
            // Closed rather than reopened: the client reconnects through a fresh connection.
            this.dropping = false;
            for (Socket socket : this.sockets) {
                socket.close();
            }
        }

        private void pump(Socket from, Socket to) {
            Thread.ofVirtual().start(() -> {
                byte[] buffer = new byte[8192];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    int read;
                    while ((read = in.read(buffer)) >= 0) {
                        if (!this.dropping) {
                            out.write(buffer, 0, read);
                            out.flush();
                        }
                    }
                }
                catch (IOException ex) {
                    // The other side closed.
                }
            });
        }

        @Override
        public void close() throws IOException {
            this.server.close();
            for (Socket socket : this.sockets) {
                socket.close();
            }
        }
    }
}
