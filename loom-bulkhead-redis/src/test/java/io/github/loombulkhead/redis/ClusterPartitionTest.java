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
import java.util.concurrent.CopyOnWriteArrayList;

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

    private static final Duration LEASE = Duration.ofSeconds(1);

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
        if (this.other != null) {
            this.other.close();
        }
        if (this.cutOff != null) {
            this.proxy.heal();
            this.cutOff.close();
        }
        if (this.client != null) {
            this.client.shutdown();
        }
        this.proxy.close();
        this.redis.stop();
    }

    @Test
    void aProcessCutOffWithoutAnErrorStopsAdmittingCallsWhenItsLeasesMayHaveGone() {
        String prefix = "partition-" + UUID.randomUUID();
        ClusterConfig config = ClusterConfig.custom().leaseDuration(LEASE).fallback(ClusterFallback.REJECT).build();
        this.client = RedisClient.create(RedisURI.builder()
            .withHost("127.0.0.1")
            .withPort(this.proxy.port())
            .withTimeout(Duration.ofSeconds(20))
            .build());
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
        await().atMost(Duration.ofSeconds(10)).until(() -> b.getActiveCount() == 4);
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
