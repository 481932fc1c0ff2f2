package io.github.loombulkhead.sample.mode;

import java.time.Duration;
import java.util.Objects;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.redis.ClusterBulkheads;
import io.github.loombulkhead.sample.Mode;
import org.jspecify.annotations.Nullable;

/** Creates the {@link ConcurrencyStrategy} of each mode for one run. */
public final class Modes {

    /** Name of the bulkhead the {@code @Bulkhead}-annotated HTTP client of {@code loom-bulkhead-http} uses. */
    public static final String HTTP_BULKHEAD_NAME = "callee";

    /** Name of the adaptive bulkhead the {@code @Bulkhead}-annotated client of {@code loom-bulkhead-adaptive} uses. */
    public static final String ADAPTIVE_BULKHEAD_NAME = "callee-adaptive";

    /** Name of the cluster bulkhead the {@code @Bulkhead}-annotated client of {@code loom-bulkhead-cluster} uses. */
    public static final String CLUSTER_BULKHEAD_NAME = "callee-cluster";

    static final String LOOM_BULKHEAD_NAME = "loom-bulkhead";

    static final String RESILIENCE4J_NAME = "resilience4j-bulkhead";

    private final @Nullable BulkheadRegistry registry;

    private final int adaptiveMaxLimit;

    private final @Nullable ClusterBulkheads cluster;

    /**
     * @param registry the starter's registry, which holds the HTTP clients' bulkheads; {@code null} when the starter
     * is not active, and then {@code loom-bulkhead-http} and {@code loom-bulkhead-adaptive} cannot run
     * @param adaptiveMaxLimit the most concurrent calls the Netflix modes may allow (the adaptive bulkhead has
     * the same ceiling from its configuration)
     */
    public Modes(@Nullable BulkheadRegistry registry, int adaptiveMaxLimit) {
        this(registry, adaptiveMaxLimit, null);
    }

    /**
     * @param cluster the starter's cluster bulkheads, which share {@code callee-cluster} through Redis; {@code null}
     * without Redis, and then {@code loom-bulkhead-cluster} cannot run
     */
    public Modes(@Nullable BulkheadRegistry registry, int adaptiveMaxLimit, @Nullable ClusterBulkheads cluster) {
        this.registry = registry;
        this.adaptiveMaxLimit = adaptiveMaxLimit;
        this.cluster = cluster;
    }

    /**
     * A fresh strategy for {@code mode}.
     *
     * @param requests requests the run will submit (bounded queues are made large enough)
     * @param limit maximum concurrent calls of the modes with a static limit
     * @param maxWait how long a task may wait for a permit
     */
    public ConcurrencyStrategy create(Mode mode, int requests, int limit, Duration maxWait) {
        return switch (mode) {
            case THREAD_POOL -> new ThreadPoolStrategy(limit);
            case VIRTUAL_UNBOUNDED -> new VirtualUnboundedStrategy();
            case VIRTUAL_SEMAPHORE -> new VirtualSemaphoreStrategy(limit);
            case LOOM_BULKHEAD -> new LoomBulkheadStrategy(limit, requests, maxWait);
            case LOOM_BULKHEAD_HTTP -> {
                Bulkhead bulkhead = httpBulkhead();
                bulkhead.changeLimit(limit);
                bulkhead.changeMaxWaitDuration(maxWait);
                yield new VirtualUnboundedStrategy(bulkhead::getLimit);
            }
            case SPRING_CONCURRENCY_LIMIT -> new SpringConcurrencyLimitStrategy(limit);
            case RESILIENCE4J_BULKHEAD -> new Resilience4jBulkheadStrategy(limit, maxWait);
            case LOOM_BULKHEAD_ADAPTIVE -> {
                // Its limit is the algorithm's: only the wait is set here.
                Bulkhead bulkhead = adaptiveBulkhead();
                bulkhead.changeMaxWaitDuration(maxWait);
                yield new VirtualUnboundedStrategy(bulkhead::getLimit);
            }
            case NETFLIX_GRADIENT2, NETFLIX_VEGAS, NETFLIX_AIMD ->
                new NetflixLimiterStrategy(mode, this.adaptiveMaxLimit, maxWait);
            // Its limit and wait are configured (loom.bulkhead.instances.callee-cluster.*): a change here would be
            // written to Redis for every replica. The limit shown is the permits this process holds right now.
            case LOOM_BULKHEAD_CLUSTER -> new VirtualUnboundedStrategy(clusterBulkhead()::getLimit);
        };
    }

    /** The bulkhead behind {@code @Bulkhead("callee")} on the HTTP client. */
    public Bulkhead httpBulkhead() {
        return starterBulkhead(HTTP_BULKHEAD_NAME, Mode.LOOM_BULKHEAD_HTTP);
    }

    /** The adaptive bulkhead behind {@code @Bulkhead("callee-adaptive")} on the HTTP client. */
    public Bulkhead adaptiveBulkhead() {
        return starterBulkhead(ADAPTIVE_BULKHEAD_NAME, Mode.LOOM_BULKHEAD_ADAPTIVE);
    }

    /** The bulkhead behind {@code @Bulkhead("callee-cluster")}, whose permits are leased from Redis. */
    public Bulkhead clusterBulkhead() {
        Bulkhead bulkhead = starterBulkhead(CLUSTER_BULKHEAD_NAME, Mode.LOOM_BULKHEAD_CLUSTER);
        if (this.cluster == null || this.cluster.find(CLUSTER_BULKHEAD_NAME).isEmpty()) {
            throw new IllegalStateException("Mode " + Mode.LOOM_BULKHEAD_CLUSTER + " needs Redis: set "
                    + "spring.data.redis.host and spring.data.redis.port, or run it with --loom.sample.replicas=2 or "
                    + "more, and the sample starts a redis-server for its replicas");
        }
        return bulkhead;
    }

    /**
     * The name of the algorithm behind {@code loom-bulkhead-adaptive}, such as {@code gradient}; {@code null} when
     * the starter is off or the bulkhead is not adaptive.
     */
    public @Nullable String adaptiveAlgorithm() {
        if (this.registry == null) {
            return null;
        }
        Bulkhead bulkhead = this.registry.bulkhead(ADAPTIVE_BULKHEAD_NAME);
        return bulkhead.isAdaptive() ? bulkhead.getLimitAlgorithm().getName() : null;
    }

    /**
     * Checks that the loom-bulkhead starter is active, as {@code mode} needs.
     * @throws IllegalStateException saying what activates it, when it is not
     */
    public void requireStarter(Mode mode) {
        if (this.registry == null) {
            throw new IllegalStateException("Mode " + mode + " needs the loom-bulkhead starter, which is active "
                    + "only with spring.threads.virtual.enabled=true and loom.bulkhead.enabled not false");
        }
    }

    private Bulkhead starterBulkhead(String name, Mode mode) {
        requireStarter(mode);
        return Objects.requireNonNull(this.registry).bulkhead(name);
    }
}
