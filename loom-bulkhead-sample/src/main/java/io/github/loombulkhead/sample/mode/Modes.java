package io.github.loombulkhead.sample.mode;

import java.time.Duration;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.sample.Mode;
import org.jspecify.annotations.Nullable;

/** Creates the {@link ConcurrencyStrategy} of each mode for one run. */
public final class Modes {

    /** Name of the bulkhead the {@code @Bulkhead}-annotated HTTP client uses. */
    public static final String HTTP_BULKHEAD_NAME = "callee";

    static final String LOOM_BULKHEAD_NAME = "loom-bulkhead";

    static final String RESILIENCE4J_NAME = "resilience4j-bulkhead";

    private final @Nullable BulkheadRegistry registry;

    /**
     * @param registry the starter's registry, which holds the HTTP client's bulkhead; {@code null} when the starter
     * is not active, and then {@code loom-bulkhead-http} cannot run
     */
    public Modes(@Nullable BulkheadRegistry registry) {
        this.registry = registry;
    }

    /**
     * A fresh strategy for {@code mode}.
     *
     * @param requests requests the run will submit (bounded queues are made large enough)
     * @param limit maximum concurrent calls
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
                yield new VirtualUnboundedStrategy();
            }
            case SPRING_CONCURRENCY_LIMIT -> new SpringConcurrencyLimitStrategy(limit);
            case RESILIENCE4J_BULKHEAD -> new Resilience4jBulkheadStrategy(limit, maxWait);
        };
    }

    /** The bulkhead behind {@code @Bulkhead("callee")} on the HTTP client. */
    public Bulkhead httpBulkhead() {
        if (this.registry == null) {
            throw new IllegalStateException("Mode loom-bulkhead-http needs the loom-bulkhead starter, which is active "
                    + "only with spring.threads.virtual.enabled=true and loom.bulkhead.enabled not false");
        }
        return this.registry.bulkhead(HTTP_BULKHEAD_NAME);
    }
}
