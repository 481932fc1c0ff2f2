package io.github.loombulkhead.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.net.httpserver.HttpServer;

/**
 * A loopback HTTP callee that takes {@code serviceMillis} per call and counts calls in flight; a call that arrives
 * while more than {@link #bound} are in flight is a violation. Samples the in-flight count every 10 ms.
 */
final class CountingCallee implements AutoCloseable {

    final AtomicInteger bound;

    final AtomicInteger inFlight = new AtomicInteger();

    final AtomicInteger maxInFlight = new AtomicInteger();

    final AtomicLong received = new AtomicLong();

    final AtomicLong violations = new AtomicLong();

    /** In-flight samples: time (ms since start) and count. */
    final ConcurrentLinkedQueue<int[]> samples = new ConcurrentLinkedQueue<>();

    /** Violations: time (ms since start) and count in flight. */
    final ConcurrentLinkedQueue<int[]> violationTimes = new ConcurrentLinkedQueue<>();

    final long start = System.nanoTime();

    private final HttpServer server;

    private final Thread sampler;

    CountingCallee(int bound, long serviceMillis) throws IOException {
        this.bound = new AtomicInteger(bound);
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1000);
        this.server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        this.server.createContext("/call", (exchange) -> {
            int now = this.inFlight.incrementAndGet();
            this.received.incrementAndGet();
            this.maxInFlight.accumulateAndGet(now, Math::max);
            if (now > this.bound.get()) {
                this.violations.incrementAndGet();
                this.violationTimes.add(new int[] { millis(), now });
            }
            try {
                Thread.sleep(serviceMillis); // the callee's work
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            this.inFlight.decrementAndGet();
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        this.server.start();
        this.sampler = Thread.ofPlatform().daemon().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                this.samples.add(new int[] { millis(), this.inFlight.get() });
                try {
                    Thread.sleep(10);
                }
                catch (InterruptedException ex) {
                    return;
                }
            }
        });
    }

    /** Milliseconds since the callee started. */
    int millis() {
        return (int) ((System.nanoTime() - this.start) / 1_000_000);
    }

    int port() {
        return this.server.getAddress().getPort();
    }

    @Override
    public void close() {
        this.sampler.interrupt();
        this.server.stop(0);
    }
}
