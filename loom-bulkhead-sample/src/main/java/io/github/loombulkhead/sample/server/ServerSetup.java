package io.github.loombulkhead.sample.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.loombulkhead.BulkheadConfig;
import org.jspecify.annotations.Nullable;

/**
 * One front-server setup of the server comparison: how its JVM is started and which endpoint ab drives. Every
 * request makes two calls to the callee, one after the other or (parallel) at once.
 */
public enum ServerSetup {

    /** Platform threads, Tomcat with 20 worker threads. */
    TOMCAT_20("tomcat-20", "/api/front/sequential", 20, false, "--spring.threads.virtual.enabled=false",
            "--server.tomcat.threads.max=20"),

    /** Platform threads, Tomcat with 50 worker threads. */
    TOMCAT_50("tomcat-50", "/api/front/sequential", 50, false, "--spring.threads.virtual.enabled=false",
            "--server.tomcat.threads.max=50"),

    /** Virtual threads: every request on its own virtual thread, nothing bounds the calls to the callee. */
    VIRTUAL("virtual", "/api/front/sequential", 0, false),

    /** Virtual threads, the two calls at once on two more virtual threads. */
    VIRTUAL_PARALLEL("virtual-parallel", "/api/front/parallel", 0, true),

    /** Virtual threads, the calls through the {@code @Bulkhead} client whose limit is the callee's capacity. */
    VIRTUAL_BULKHEAD("virtual-bulkhead", "/api/front/bulkhead", 0, false),

    /**
     * Virtual threads, requests bounded by the inbound bulkhead at the callee's capacity; the rest wait in a queue
     * larger than the load, so none is shed.
     */
    VIRTUAL_INBOUND("virtual-inbound", "/api/front/sequential", 0, false, "--loom.bulkhead.server.enabled=true"),

    /**
     * The same with a queue as large as the limit: beyond twice the callee's capacity, requests are shed at once
     * with {@code 503}.
     */
    VIRTUAL_INBOUND_SHED("virtual-inbound-shed", "/api/front/sequential", 0, false,
            "--loom.bulkhead.server.enabled=true");

    /** The inbound bulkhead's max wait unless set: {@code BulkheadConfig.DEFAULT_MAX_WAIT_DURATION}. */
    private static final Duration DEFAULT_MAX_WAIT = BulkheadConfig.DEFAULT_MAX_WAIT_DURATION;

    private final String id;

    private final String path;

    private final int threads;

    private final boolean parallel;

    private final List<String> arguments;

    ServerSetup(String id, String path, int threads, boolean parallel, String... arguments) {
        this.id = id;
        this.path = path;
        this.threads = threads;
        this.parallel = parallel;
        this.arguments = List.of(arguments);
    }

    public String id() {
        return this.id;
    }

    /** The endpoint ab drives. */
    public String path() {
        return this.path;
    }

    /**
     * The front JVM's arguments for a callee of {@code capacity} workers and a scenario of at most
     * {@code maxConcurrency} concurrent requests; {@code inboundMaxWait} is the inbound bulkhead's max wait
     * ({@link #inboundMaxWait}).
     */
    public List<String> arguments(int capacity, int maxConcurrency, Duration inboundMaxWait) {
        List<String> all = new ArrayList<>(this.arguments);
        if (this == VIRTUAL_BULKHEAD) {
            all.add("--loom.sample.limit=" + capacity);
        }
        Integer queue = inboundQueueCapacity(capacity, maxConcurrency);
        if (queue != null) {
            // Each request makes one callee call at a time, so requests in flight = calls in flight.
            all.add("--loom.bulkhead.instances.server.max-concurrent-calls=" + capacity);
            all.add("--loom.bulkhead.instances.server.queue-capacity=" + queue);
            all.add("--loom.bulkhead.instances.server.max-wait-duration=" + inboundMaxWait.toMillis() + "ms");
        }
        return all;
    }

    /**
     * The inbound bulkhead's max wait, beyond the longest wait a request can have, so that the bulkhead times no
     * request out and whether it sheds depends on its limit and queue alone. A request holds its permit for at most
     * {@code callsPerRequest} calls, each ending by its connect and read timeouts; the limit is the callee's
     * {@code capacity}, and at most {@code maxConcurrency} requests are ahead of one, so it waits at most
     * {@code ceil(maxConcurrency / capacity)} such rounds. Twice that and 10 s more, at least the bulkhead's default
     * of 60 s.
     */
    public static Duration inboundMaxWait(int capacity, int maxConcurrency, int callsPerRequest,
            Duration connectTimeout, Duration readTimeout) {
        long rounds = (maxConcurrency + (long) capacity - 1) / capacity;
        Duration longest = connectTimeout.plus(readTimeout).multipliedBy(callsPerRequest).multipliedBy(rounds);
        Duration maxWait = longest.multipliedBy(2).plusSeconds(10);
        return (maxWait.compareTo(DEFAULT_MAX_WAIT) < 0) ? DEFAULT_MAX_WAIT : maxWait;
    }

    /** Whether the setup bounds requests with the inbound bulkhead (its limit is the callee's capacity). */
    public boolean inbound() {
        return this == VIRTUAL_INBOUND || this == VIRTUAL_INBOUND_SHED;
    }

    /**
     * Requests the inbound bulkhead lets wait, for a callee of {@code capacity} workers and at most
     * {@code maxConcurrency} concurrent requests; {@code null} without an inbound bulkhead.
     */
    public @Nullable Integer inboundQueueCapacity(int capacity, int maxConcurrency) {
        if (this == VIRTUAL_INBOUND) {
            return Math.max(10_000, 2 * maxConcurrency);
        }
        return (this == VIRTUAL_INBOUND_SHED) ? capacity : null;
    }

    /** Requests the setup works on at once with {@code concurrency} clients, or fewer when its threads or limit say so. */
    public int activeRequests(int concurrency, int capacity) {
        if (this.threads > 0) {
            return Math.min(concurrency, this.threads);
        }
        if (inbound()) {
            return Math.min(concurrency, capacity);
        }
        return concurrency;
    }

    /**
     * The Little's-law bound in requests per second: the requests worked on at once over the time one takes,
     * capped by what the callee's workers can serve ({@code capacity / (2 × latency)} requests per second).
     */
    public double littlesLawBound(int concurrency, int capacity, Duration latency) {
        double latencySeconds = latency.toNanos() / 1e9;
        double perRequest = this.parallel ? latencySeconds : 2 * latencySeconds;
        double byConcurrency = activeRequests(concurrency, capacity) / perRequest;
        double byCallee = capacity / (2 * latencySeconds);
        return Math.min(byConcurrency, byCallee);
    }

    public static @Nullable ServerSetup fromId(String id) {
        return Arrays.stream(values()).filter((setup) -> setup.id.equals(id)).findFirst().orElse(null);
    }

    public static List<String> ids() {
        return Arrays.stream(values()).map(ServerSetup::id).toList();
    }
}
