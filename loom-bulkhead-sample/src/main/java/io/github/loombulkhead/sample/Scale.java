package io.github.loombulkhead.sample;

import java.time.Duration;

/** Presets for the scenario values that are not set explicitly. */
public enum Scale {

    /**
     * The reference scaled down to finish every mode in about a minute: latency 300 ms instead of 3 s and
     * read timeout 500 ms instead of 5 s keep the reference's ratio (read timeout below two latencies).
     */
    DEFAULT(1_000, 100, 200, Duration.ofMillis(300), Duration.ofMillis(500)),

    /** The reference's exact numbers: 1,000 requests, limit 100, 200 callee workers, 3 s latency, 5 s read timeout. */
    REFERENCE(1_000, 100, 200, Duration.ofSeconds(3), Duration.ofSeconds(5));

    private final int requests;

    private final int limit;

    private final int calleeCapacity;

    private final Duration calleeLatency;

    private final Duration readTimeout;

    Scale(int requests, int limit, int calleeCapacity, Duration calleeLatency, Duration readTimeout) {
        this.requests = requests;
        this.limit = limit;
        this.calleeCapacity = calleeCapacity;
        this.calleeLatency = calleeLatency;
        this.readTimeout = readTimeout;
    }

    public int requests() {
        return this.requests;
    }

    public int limit() {
        return this.limit;
    }

    public int calleeCapacity() {
        return this.calleeCapacity;
    }

    public Duration calleeLatency() {
        return this.calleeLatency;
    }

    public Duration readTimeout() {
        return this.readTimeout;
    }
}
