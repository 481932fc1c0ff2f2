package io.github.loombulkhead.http;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A real HTTP server on loopback (JDK {@code HttpServer}, one virtual thread per exchange) that
 * records how many requests it serves at once. A request counts from the moment its handler starts
 * until just before its response starts, so a client can only send its next request after the count
 * went down: the recorded maximum is exact, not inflated by the server's own scheduling.
 *
 * <ul>
 * <li>{@code /slow?ms=N}: answers {@code ok} after N ms;</li>
 * <li>{@code /status/N}: answers status N (e.g. 500, 503, 429) with a body;</li>
 * <li>{@code /hang}: answers only when the server is closed (for read timeouts);</li>
 * <li>{@code /stream}: sends {@code first\n}, then waits for {@link #openStreamGate()}, then
 * {@code last\n}.</li>
 * </ul>
 */
public final class LoopbackServer implements AutoCloseable {

    private final HttpServer server;

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    private final ConcurrencyGauge gauge;

    private final ConcurrencyGauge shared;

    private final AtomicInteger requests = new AtomicInteger();

    private final CountDownLatch closing = new CountDownLatch(1);

    private volatile CountDownLatch streamGate = new CountDownLatch(1);

    private LoopbackServer(ConcurrencyGauge shared) throws IOException {
        this.gauge = new ConcurrencyGauge();
        this.shared = shared;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1000);
        this.server.setExecutor(this.executor);
        this.server.createContext("/slow", this::slow);
        this.server.createContext("/status/", this::error);
        this.server.createContext("/hang", this::hang);
        this.server.createContext("/stream", this::stream);
        this.server.start();
    }

    public static LoopbackServer start() throws IOException {
        return new LoopbackServer(null);
    }

    /** A server that also records into {@code shared}, to measure several servers together. */
    public static LoopbackServer start(ConcurrencyGauge shared) throws IOException {
        return new LoopbackServer(shared);
    }

    /** {@code http://127.0.0.1:port}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + this.server.getAddress().getPort();
    }

    public URI uri(String path) {
        return URI.create(baseUrl() + path);
    }

    public int port() {
        return this.server.getAddress().getPort();
    }

    /** Highest number of requests served at once since start or {@link #reset()}. */
    public int maxConcurrent() {
        return this.gauge.max();
    }

    /** Requests being served now. */
    public int concurrent() {
        return this.gauge.current();
    }

    /** Requests received since start or {@link #reset()}. */
    public int requests() {
        return this.requests.get();
    }

    public void reset() {
        this.gauge.reset();
        this.requests.set(0);
        this.streamGate = new CountDownLatch(1);
    }

    /** Lets every waiting and future {@code /stream} response finish. */
    public void openStreamGate() {
        this.streamGate.countDown();
    }

    private void enter() {
        this.requests.incrementAndGet();
        this.gauge.enter();
        if (this.shared != null) {
            this.shared.enter();
        }
    }

    private void leave() {
        if (this.shared != null) {
            this.shared.leave();
        }
        this.gauge.leave();
    }

    private void slow(HttpExchange exchange) throws IOException {
        enter();
        String query = exchange.getRequestURI().getQuery();
        long millis = (query != null && query.startsWith("ms=")) ? Long.parseLong(query.substring(3)) : 0;
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        leave();
        respond(exchange, 200, "ok");
    }

    private void error(HttpExchange exchange) throws IOException {
        enter();
        leave();
        String path = exchange.getRequestURI().getPath();
        respond(exchange, Integer.parseInt(path.substring(path.lastIndexOf('/') + 1)), "boom");
    }

    private void hang(HttpExchange exchange) throws IOException {
        enter();
        try {
            this.closing.await(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        leave();
        try {
            respond(exchange, 200, "late");
        }
        catch (IOException ex) {
            // the client gave up long ago
        }
    }

    private void stream(HttpExchange exchange) throws IOException {
        enter();
        CountDownLatch gate = this.streamGate;
        exchange.getResponseHeaders().set("Content-Type", "text/plain");
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream body = exchange.getResponseBody()) {
            body.write("first\n".getBytes(StandardCharsets.UTF_8));
            body.flush();
            try {
                gate.await(30, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            leave();
            body.write("last\n".getBytes(StandardCharsets.UTF_8));
        }
    }

    private static void respond(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream body = exchange.getResponseBody()) {
            body.write(bytes);
        }
    }

    @Override
    public void close() {
        this.closing.countDown();
        this.streamGate.countDown();
        this.server.stop(0);
        this.executor.shutdownNow();
    }
}
