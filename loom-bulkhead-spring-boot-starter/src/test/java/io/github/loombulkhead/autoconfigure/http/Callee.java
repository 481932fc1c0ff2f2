package io.github.loombulkhead.autoconfigure.http;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A real HTTP server on loopback whose {@code /slow} holds every request until {@link #release()} and
 * records how many requests it had in flight at once; {@code /redirect} redirects to {@code /slow}.
 * In-flight is decremented before the response is written, so a client that starts its next call after
 * reading a response can never inflate the maximum.
 */
final class Callee implements AutoCloseable {

    private final HttpServer server;

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    private final AtomicInteger inFlight = new AtomicInteger();

    private final AtomicInteger maxInFlight = new AtomicInteger();

    private final AtomicInteger total = new AtomicInteger();

    private final Set<String> userAgents = ConcurrentHashMap.newKeySet();

    private volatile CountDownLatch gate = new CountDownLatch(1);

    private Callee(HttpServer server) {
        this.server = server;
    }

    static Callee start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            Callee callee = new Callee(server);
            server.createContext("/slow", callee::handle);
            server.createContext("/redirect", Callee::redirect);
            server.setExecutor(callee.executor);
            server.start();
            return callee;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start the callee server", ex);
        }
    }

    String baseUrl() {
        return "http://127.0.0.1:" + this.server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        int now = this.inFlight.incrementAndGet();
        this.maxInFlight.accumulateAndGet(now, Math::max);
        this.total.incrementAndGet();
        String userAgent = exchange.getRequestHeaders().getFirst("User-Agent");
        this.userAgents.add((userAgent != null) ? userAgent : "none");
        try {
            if (!this.gate.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("callee gate was never released");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        finally {
            this.inFlight.decrementAndGet();
        }
        byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    /** Answers {@code 302 Found} pointing at {@code /slow}. */
    private static void redirect(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Location", "/slow");
        exchange.sendResponseHeaders(302, -1);
        exchange.close();
    }

    int inFlight() {
        return this.inFlight.get();
    }

    int maxInFlight() {
        return this.maxInFlight.get();
    }

    int total() {
        return this.total.get();
    }

    /** The {@code User-Agent} headers seen, which name the HTTP client library that sent the requests. */
    Set<String> userAgents() {
        return Set.copyOf(this.userAgents);
    }

    /** Lets every held and future request answer. */
    void release() {
        this.gate.countDown();
    }

    /** Holds requests again and forgets the counts. */
    void reset() {
        this.gate = new CountDownLatch(1);
        this.maxInFlight.set(0);
        this.total.set(0);
        this.userAgents.clear();
    }

    @Override
    public void close() {
        release();
        this.server.stop(0);
        this.executor.shutdownNow();
    }
}
