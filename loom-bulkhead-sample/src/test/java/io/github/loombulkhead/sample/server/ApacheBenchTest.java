package io.github.loombulkhead.sample.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

/**
 * The real ab against loopback servers: one that answers every other request with 503 after 20 ms, one that closes
 * every other connection without an answer, and a port nothing listens on.
 */
class ApacheBenchTest {

    private final AtomicInteger requests = new AtomicInteger();

    private HttpServer server;

    @BeforeEach
    void start() throws IOException {
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
        this.server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        this.server.createContext("/", (exchange) -> {
            int n = this.requests.incrementAndGet();
            try {
                Thread.sleep(20);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            byte[] body = ((n % 2 == 0) ? "ok" : "busy, try again").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders((n % 2 == 0) ? 200 : 503, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        this.server.start();
    }

    @AfterEach
    void stop() {
        this.server.stop(0);
    }

    @Test
    void readsCountsRatesAndPercentilesOfARealRun() {
        String url = "http://127.0.0.1:" + this.server.getAddress().getPort() + "/front";
        ApacheBench.AbResult result = new ApacheBench("ab").run(url, 40, 4, 30);
        assertThat(result.complete()).isEqualTo(40);
        assertThat(result.non2xx()).isEqualTo(20);
        assertThat(result.answered2xx()).isEqualTo(20);
        assertThat(result.unanswered()).isZero();
        // ab's req/s counts the 503 answers too; the served rate only the 200s.
        assertThat(result.answered2xxPerSecond()).isCloseTo(result.requestsPerSecond() / 2, withinPercentage(1));
        // Answers of two lengths are not failures (-l).
        assertThat(result.failed()).isZero();
        assertThat(this.requests).hasValue(40);
        assertThat(result.requestsPerSecond()).isPositive();
        assertThat(result.p50Ms()).isGreaterThanOrEqualTo(20);
        assertThat(result.p99Ms()).isGreaterThanOrEqualTo(result.p50Ms());
        assertThat(result.meanMs()).isGreaterThanOrEqualTo(20);
        // ab's "Time per request" is concurrency over the rate.
        assertThat(result.timePerRequestMs()).isCloseTo(4 * 1000 / result.requestsPerSecond(),
                within(0.5));
        assertThat(result.durationMs()).isPositive();
    }

    /**
     * A front server that closes every other connection without sending a byte: ab (-r -l) counts those requests as
     * complete, neither failed nor non-2xx, yet they were not served, and neither the report's req/s nor its share
     * of the bound may count them.
     */
    @Test
    void aConnectionClosedWithoutAnAnswerIsNotAServedRequest() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            AtomicInteger accepted = new AtomicInteger();
            Thread.ofVirtual().start(() -> answerEveryOtherConnection(server, accepted));
            ApacheBench.AbResult ab = new ApacheBench("ab").run(
                    "http://127.0.0.1:" + server.getLocalPort() + "/api/front/sequential", 10, 2, 30);
            assertThat(accepted).hasValue(10);
            assertThat(ab.complete()).isEqualTo(10);
            // What ab's summary says: nothing failed, no non-2xx answer.
            assertThat(ab.failed()).isZero();
            assertThat(ab.non2xx()).isZero();
            assertThat(ab.answered2xx()).isEqualTo(5);
            assertThat(ab.unanswered()).isEqualTo(5);
            ServerReport.Result result = ServerComparison.result(ServerSetup.VIRTUAL, 2, ab, List.of(), 10,
                    Duration.ofMillis(200), null, 0);
            assertThat(result.requests()).isEqualTo(10);
            assertThat(result.served()).isEqualTo(5);
            assertThat(result.unanswered()).isEqualTo(5);
            // Half of what ab's req/s says, and the share of the bound (2 / 0.4 s = 5 req/s) follows.
            assertThat(result.requestsPerSecond()).isCloseTo(5 * 1000.0 / ab.durationMs(), within(1e-9))
                .isCloseTo(ab.requestsPerSecond() / 2, withinPercentage(2));
            assertThat(result.littlesLawEfficiency()).isCloseTo(result.requestsPerSecond() / 5.0, within(1e-9));
        }
    }

    /** Nothing listens: ab -r ends with code 0 and counts every request complete, none of them answered. */
    @Test
    void aPortNothingListensOnServesNothing() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        ApacheBench.AbResult ab = new ApacheBench("ab").run("http://127.0.0.1:" + port + "/", 20, 2, 30);
        assertThat(ab.complete()).isEqualTo(20);
        assertThat(ab.failed()).isPositive();
        assertThat(ab.answered2xx()).isZero();
        assertThat(ab.unanswered()).isEqualTo(20);
        ServerReport.Result result = ServerComparison.result(ServerSetup.VIRTUAL, 2, ab, List.of(), 10,
                Duration.ofMillis(200), null, 0);
        assertThat(result.requestsPerSecond()).isZero();
        assertThat(result.littlesLawEfficiency()).isZero();
    }

    private static void answerEveryOtherConnection(ServerSocket server, AtomicInteger accepted) {
        while (!server.isClosed()) {
            try (Socket socket = server.accept()) {
                InputStream in = socket.getInputStream();
                in.read(new byte[4096]);
                // A run long enough for ab's rounded times to give its rate to within 1 %.
                Thread.sleep(20);
                if (accepted.incrementAndGet() % 2 == 0) {
                    OutputStream out = socket.getOutputStream();
                    out.write("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
            }
            catch (IOException ex) {
                return;
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
