package io.github.loombulkhead.http;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
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
 * A real HTTP server on loopback (JDK {@code HttpServer}, one virtual thread per exchange) that
 * records how many requests it serves at once. A request counts from the moment its handler starts
 * until just before its response starts, so a client can only send its next request after the count
 * went down: the recorded maximum is exact, not inflated by the server's own scheduling. Tests get one
 * from {@link LoopbackServerExtension}, which starts and stops it.
 *
 * <ul>
 * <li>{@code /slow?ms=N}: answers {@code ok} after N ms;</li>
 * <li>{@code /limited?ms=N&max=M}: answers {@code ok} after N ms, or at once {@code 429 Too Many Requests} when M
 * such requests are being served already (a server-side concurrency limiter);</li>
 * <li>{@code /held}: answers {@code ok} once {@link #release()} is called;</li>
 * <li>{@code /redirect}: answers {@code 302 Found} pointing at {@code /held} (not counted as a request);</li>
 * <li>{@code /status/N}: answers status N (e.g. 500, 503, 429) with a body;</li>
 * <li>{@code /hang}: answers only when the server is closed (for read timeouts);</li>
 * <li>{@code /stream}: sends {@code first\n}, then waits for {@link #release()}, then
 * {@code last\n}; {@code /stream?status=N} does so with status N instead of 200.</li>
 * </ul>
 */
public final class LoopbackServer implements AutoCloseable {

    private final HttpServer server;

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    private final ConcurrencyGauge gauge;

    private volatile ConcurrencyGauge shared;

    private final AtomicInteger requests = new AtomicInteger();

    private final AtomicInteger limited = new AtomicInteger();

    private final AtomicInteger refused = new AtomicInteger();

    private final Set<String> userAgents = ConcurrentHashMap.newKeySet();

    private final CountDownLatch closing = new CountDownLatch(1);

    private volatile CountDownLatch gate = new CountDownLatch(1);

    private LoopbackServer() throws IOException {
        this.gauge = new ConcurrencyGauge();
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1000);
        this.server.setExecutor(this.executor);
        this.server.createContext("/slow", this::slow);
        this.server.createContext("/limited", this::limited);
        this.server.createContext("/held", this::held);
        this.server.createContext("/redirect", LoopbackServer::redirect);
        this.server.createContext("/status/", this::error);
        this.server.createContext("/hang", this::hang);
        this.server.createContext("/stream", this::stream);
        this.server.start();
    }

    /** Started and closed by {@link LoopbackServerExtension}. */
    static LoopbackServer start() throws IOException {
        return new LoopbackServer();
    }

    /** Records every request from now on into {@code shared} as well, to measure several servers together. */
    public void alsoRecordInto(ConcurrencyGauge shared) {
        this.shared = shared;
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

    /** {@code /limited} requests answered {@code 429} since start or {@link #reset()}. */
    public int refused() {
        return this.refused.get();
    }

    /** Requests received since start or {@link #reset()}. */
    public int requests() {
        return this.requests.get();
    }

    /** The {@code User-Agent} headers seen since start or {@link #reset()}, which name the client library. */
    public Set<String> userAgents() {
        return Set.copyOf(this.userAgents);
    }

    /** Forgets the counts and user agents, and holds {@code /held} and {@code /stream} responses again. */
    public void reset() {
        this.gauge.reset();
        this.requests.set(0);
        this.refused.set(0);
        this.userAgents.clear();
        this.gate = new CountDownLatch(1);
    }

    /** Lets every waiting and future {@code /held} and {@code /stream} response finish, until {@link #reset()}. */
    public void release() {
        this.gate.countDown();
    }

    private void enter(HttpExchange exchange) {
        this.requests.incrementAndGet();
        String userAgent = exchange.getRequestHeaders().getFirst("User-Agent");
        this.userAgents.add((userAgent != null) ? userAgent : "none");
        this.gauge.enter();
        ConcurrencyGauge shared = this.shared;
        if (shared != null) {
            shared.enter();
        }
    }

    private void leave() {
        ConcurrencyGauge shared = this.shared;
        if (shared != null) {
            shared.leave();
        }
        this.gauge.leave();
    }

    private void slow(HttpExchange exchange) throws IOException {
        enter(exchange);
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

    private void limited(HttpExchange exchange) throws IOException {
        Map<String, String> query = new HashMap<>();
        for (String pair : exchange.getRequestURI().getQuery().split("&")) {
            query.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
        }
        int max = Integer.parseInt(query.get("max"));
        long millis = Long.parseLong(query.get("ms"));
        if (this.limited.incrementAndGet() > max) {
            // Received, but never served: it counts as a request, not toward the requests served at once.
            this.limited.decrementAndGet();
            this.requests.incrementAndGet();
            this.refused.incrementAndGet();
            respond(exchange, 429, "busy");
            return;
        }
        enter(exchange);
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        finally {
            leave();
            this.limited.decrementAndGet();
        }
        respond(exchange, 200, "ok");
    }

    private void held(HttpExchange exchange) throws IOException {
        enter(exchange);
        boolean released = awaitGate(this.gate);
        leave();
        if (released) {
            respond(exchange, 200, "ok");
        }
        else {
            respond(exchange, 500, "held for 30 s and never released");
        }
    }

    private static void redirect(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Location", "/held");
        exchange.sendResponseHeaders(302, -1);
        exchange.close();
    }

    private void error(HttpExchange exchange) throws IOException {
        enter(exchange);
        leave();
        String path = exchange.getRequestURI().getPath();
        respond(exchange, Integer.parseInt(path.substring(path.lastIndexOf('/') + 1)), "boom");
    }

    private void hang(HttpExchange exchange) throws IOException {
        enter(exchange);
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
        enter(exchange);
        CountDownLatch gate = this.gate;
        exchange.getResponseHeaders().set("Content-Type", "text/plain");
        String query = exchange.getRequestURI().getQuery();
        int status = (query != null && query.startsWith("status=")) ? Integer.parseInt(query.substring(7)) : 200;
        exchange.sendResponseHeaders(status, 0);
        try (OutputStream body = exchange.getResponseBody()) {
            body.write("first\n".getBytes(StandardCharsets.UTF_8));
            body.flush();
            awaitGate(gate);
            leave();
            body.write("last\n".getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Whether {@code gate} opened within 30 s; a test that forgot {@link #release()} fails instead of hanging. */
    private static boolean awaitGate(CountDownLatch gate) {
        try {
            return gate.await(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
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
        this.gate.countDown();
        this.server.stop(0);
        this.executor.shutdownNow();
    }
}
