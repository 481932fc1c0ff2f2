package io.github.loombulkhead.sample.server;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The real ab against a loopback server that answers every other request with 503 after 20 ms. */
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
}
