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

    /**
     * The modes a comparison runs when none are named: all but {@code loom-bulkhead-cluster}, which needs Redis, and
     * on a JDK before 24 the Netflix ones (see {@link #whyNotOn(int)}).
     */
    public static List<Mode> defaults() {
        return defaults(Runtime.version().feature());
    }

    /** {@link #defaults()} on a JDK of feature release {@code jdk}. */
    static List<Mode> defaults(int jdk) {
        return Arrays.stream(values())
            .filter((mode) -> mode != LOOM_BULKHEAD_CLUSTER && mode.whyNotOn(jdk).isEmpty())
            .toList();
    }

    /** Whether the mode is one of Netflix concurrency-limits' ({@code netflix-*}). */
    public boolean isNetflix() {
        return this == NETFLIX_GRADIENT2 || this == NETFLIX_VEGAS || this == NETFLIX_AIMD;
    }

    /**
     * Why the mode cannot run on a JDK of feature release {@code jdk}, if it cannot: Netflix's {@code BlockingLimiter}
     * waits in {@code synchronized}/{@code Object.wait}, which before JDK 24 (JEP 491) holds a carrier thread per
     * waiting virtual thread; the scheduler adds at most 256 carriers, so a burst of 1,000 tasks stalls until the
     * waits time out.
     */
    public Optional<String> whyNotOn(int jdk) {
        if (isNetflix() && jdk < 24) {
            return Optional.of("Netflix concurrency-limits' BlockingLimiter waits in Object.wait, which pins a "
                    + "carrier thread per waiting virtual thread before JDK 24 (JEP 491), so the burst stalls; this "
                    + "is JDK " + jdk + ". Run the sample on JDK 24 or newer.");
        }
        return Optional.empty();
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
