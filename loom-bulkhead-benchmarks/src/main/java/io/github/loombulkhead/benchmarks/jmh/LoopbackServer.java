package io.github.loombulkhead.benchmarks.jmh;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpServer;

/** A JDK HTTP server on 127.0.0.1 that answers {@code GET /ok} with a two-byte body at once. */
public final class LoopbackServer implements AutoCloseable {

    private static final byte[] BODY = "ok".getBytes(StandardCharsets.US_ASCII);

    private final HttpServer server;

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    private LoopbackServer(HttpServer server) {
        this.server = server;
    }

    /** Starts a server on a free loopback port. */
    public static LoopbackServer start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            LoopbackServer loopback = new LoopbackServer(server);
            server.setExecutor(loopback.executor);
            server.createContext("/ok", (exchange) -> {
                exchange.getResponseHeaders().add("Content-Type", "text/plain");
                exchange.sendResponseHeaders(200, BODY.length);
                try (OutputStream body = exchange.getResponseBody()) {
                    body.write(BODY);
                }
            });
            server.start();
            return loopback;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start the loopback HTTP server", ex);
        }
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String baseUrl() {
        return "http://" + this.server.getAddress().getHostString() + ":" + this.server.getAddress().getPort();
    }

    @Override
    public void close() {
        this.server.stop(0);
        this.executor.close();
    }
}
