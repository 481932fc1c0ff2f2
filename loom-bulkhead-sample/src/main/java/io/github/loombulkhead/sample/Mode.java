package io.github.loombulkhead.sample;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The ways of running the calls concurrently that the comparison puts side by side. Each id is part of
 * the command line and report contract.
 */
public enum Mode {

    /** {@code Executors.newFixedThreadPool(limit)}: platform threads, excess tasks wait in the pool's queue. */
    THREAD_POOL("thread-pool"),

    /** {@code newVirtualThreadPerTaskExecutor()} with no limit: every call reaches the callee at once. */
    VIRTUAL_UNBOUNDED("virtual-unbounded"),

    /** A virtual thread per task that acquires a {@code Semaphore(limit)} before calling (the reference's fix). */
    VIRTUAL_SEMAPHORE("virtual-semaphore"),

    /** {@code BoundedVirtualExecutor} with {@code max-concurrent-calls = limit}: waiting tasks own no thread. */
    LOOM_BULKHEAD("loom-bulkhead"),

    /** Unbounded virtual threads; the limit is enforced by {@code @Bulkhead} on the {@code @HttpExchange} client. */
    LOOM_BULKHEAD_HTTP("loom-bulkhead-http"),

    /** Spring's {@code SimpleAsyncTaskExecutor} on virtual threads with {@code concurrencyLimit = limit}. */
    SPRING_CONCURRENCY_LIMIT("spring-concurrency-limit"),

    /** A resilience4j {@code Bulkhead(maxConcurrentCalls = limit)} decorating the calls on virtual threads. */
    RESILIENCE4J_BULKHEAD("resilience4j-bulkhead"),

    /**
     * Unbounded virtual threads calling a {@code @Bulkhead} HTTP client whose bulkhead is adaptive: its limit
     * follows the callee, never above the adaptive max limit.
     */
    LOOM_BULKHEAD_ADAPTIVE("loom-bulkhead-adaptive"),

    /** A virtual thread per task through Netflix's {@code SimpleLimiter} with {@code Gradient2Limit}, blocking. */
    NETFLIX_GRADIENT2("netflix-gradient2"),

    /** A virtual thread per task through Netflix's {@code SimpleLimiter} with {@code VegasLimit}, blocking. */
    NETFLIX_VEGAS("netflix-vegas"),

    /** A virtual thread per task through Netflix's {@code SimpleLimiter} with {@code AIMDLimit}, blocking. */
    NETFLIX_AIMD("netflix-aimd"),

    /**
     * Like {@code loom-bulkhead-http}, but its {@code @Bulkhead} is a cluster bulkhead on Redis: the limit holds
     * across every replica of the caller, not per process. Runs only when named in {@code loom.sample.modes}.
     */
    LOOM_BULKHEAD_CLUSTER("loom-bulkhead-cluster");

    private final String id;

    Mode(String id) {
        this.id = id;
    }

    /** The mode's name on the command line and in the report, e.g. {@code thread-pool}. */
    public String id() {
        return this.id;
    }

    /** Whether the mode limits how many calls reach the callee at once (all but {@code virtual-unbounded}). */
    public boolean isBounded() {
        return this != VIRTUAL_UNBOUNDED;
    }

    /**
     * Whether the mode finds its limit while it runs, never above the adaptive max limit
     * ({@code loom-bulkhead-adaptive} and the Netflix ones).
     */
    public boolean isAdaptive() {
        return this == LOOM_BULKHEAD_ADAPTIVE || this == NETFLIX_GRADIENT2 || this == NETFLIX_VEGAS
                || this == NETFLIX_AIMD;
    }

    /** All mode ids, those that run by default first, in their order. */
    public static List<String> ids() {
        return Arrays.stream(values()).map(Mode::id).toList();
    }

    /** The modes a comparison runs when none are named: all but {@code loom-bulkhead-cluster}, which needs Redis. */
    public static List<Mode> defaults() {
        return Arrays.stream(values()).filter((mode) -> mode != LOOM_BULKHEAD_CLUSTER).toList();
    }

    /** The ids of {@link #defaults()}. */
    public static List<String> defaultIds() {
        return defaults().stream().map(Mode::id).toList();
    }

    /** The mode with this id, if any. */
    public static Optional<Mode> fromId(String id) {
        return Arrays.stream(values()).filter((mode) -> mode.id.equals(id)).findFirst();
    }

    @Override
    public String toString() {
        return this.id;
    }
}
