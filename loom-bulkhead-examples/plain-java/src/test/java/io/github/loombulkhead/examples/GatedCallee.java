package io.github.loombulkhead.examples;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real HTTP callee on loopback for one test (JDK {@code HttpServer}, a virtual thread per exchange): every
 * request waits until {@link #open()} and then answers {@code ok}, or {@code {"id":"<last path segment>"}} as JSON
 * for a path under {@code /reports/}. It counts the requests it holds now and
 * the most it held at once; a request counts until just before its response starts, so the maximum is exact.
 */
public final class GatedCallee implements BeforeEachCallback, AfterEachCallback {

    private final AtomicInteger inFlight = new AtomicInteger();

    private final AtomicInteger maxInFlight = new AtomicInteger();

    private final AtomicInteger served = new AtomicInteger();

    private final CountDownLatch gate = new CountDownLatch(1);

    private ExecutorService executor;

    private HttpServer server;

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        this.executor = Executors.newVirtualThreadPerTaskExecutor();
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1000);
        this.server.setExecutor(this.executor);
        this.server.createContext("/", this::handle);
        this.server.start();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        open();
        this.server.stop(0);
        this.executor.close();
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + this.server.getAddress().getPort();
    }

    /** Lets every held and later request answer. */
    public void open() {
        this.gate.countDown();
    }

    /** Requests held now. */
    public int inFlight() {
        return this.inFlight.get();
    }

    /** The most requests held at once. */
    public int maxInFlight() {
        return this.maxInFlight.get();
    }

    /** Requests answered {@code ok}; each counts before its response starts, so a caller that has it sees it counted. */
    public int served() {
        return this.served.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            this.maxInFlight.accumulateAndGet(this.inFlight.incrementAndGet(), Math::max);
            boolean opened;
            try {
                opened = this.gate.await(60, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                opened = false;
            }
            finally {
                this.inFlight.decrementAndGet();
            }
            if (opened) {
                this.served.incrementAndGet();
            }
            String path = exchange.getRequestURI().getPath();
            boolean report = opened && path.contains("/reports/");
            String text = report ? "{\"id\":\"" + path.substring(path.lastIndexOf('/') + 1) + "\"}"
                    : opened ? "ok" : "gate never opened";
            byte[] body = text.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", report ? "application/json" : "text/plain");
            exchange.sendResponseHeaders(opened ? 200 : 503, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
