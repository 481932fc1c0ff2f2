package io.github.loombulkhead;

import java.time.Duration;
import java.util.Objects;

import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.DropClassifier;

/**
 * Immutable configuration of one bulkhead: how many calls may run at once, how many may wait,
 * how long a waiting call may wait and in which order waiting calls get permits.
 *
 * <p>Defaults: 100 concurrent calls, 10,000 waiting, 60 s maximum wait, FIFO. They let the
 * reference burst (1,000 calls of 3 s each at a limit of 100, the last one waiting 27 s) complete
 * with only the limit set, while a full queue stays small: a queued task holds no thread (the heap
 * it takes is measured in {@code docs/benchmarks.md}).
 */
public final class BulkheadConfig {

    /** Default maximum number of calls holding a permit at once. */
    public static final int DEFAULT_MAX_CONCURRENT_CALLS = 100;

    /** Default maximum number of calls or tasks waiting for a permit. */
    public static final int DEFAULT_QUEUE_CAPACITY = 10_000;

    /** Default maximum time a call or task waits for a permit. */
    public static final Duration DEFAULT_MAX_WAIT_DURATION = Duration.ofSeconds(60);

    private static final BulkheadConfig DEFAULTS = custom().build();

    private final int maxConcurrentCalls;

    private final int queueCapacity;

    private final Duration maxWaitDuration;

    private final long maxWaitNanos;

    private final boolean fair;

    private final AdaptiveLimitConfig adaptive;

    private final DropClassifier dropClassifier;

    private BulkheadConfig(Builder builder) {
        this.maxConcurrentCalls = builder.maxConcurrentCalls;
        this.queueCapacity = builder.queueCapacity;
        this.maxWaitDuration = builder.maxWaitDuration;
        this.maxWaitNanos = saturatedNanos(builder.maxWaitDuration);
        this.fair = builder.fair;
        this.adaptive = builder.adaptive;
        this.dropClassifier = builder.dropClassifier;
    }

    /** The defaults described on this class. */
    public static BulkheadConfig ofDefaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder custom() {
        return new Builder();
    }

    /** A builder starting from {@code base}. */
    public static Builder from(BulkheadConfig base) {
        Objects.requireNonNull(base, "base config must not be null");
        return new Builder().maxConcurrentCalls(base.maxConcurrentCalls)
            .queueCapacity(base.queueCapacity)
            .maxWaitDuration(base.maxWaitDuration)
            .fair(base.fair)
            .adaptive(base.adaptive)
            .dropClassifier(base.dropClassifier);
    }

    /**
     * Maximum number of calls holding a permit at once: the limit of a static bulkhead, the ceiling an
     * adaptive one never exceeds.
     */
    public int getMaxConcurrentCalls() {
        return this.maxConcurrentCalls;
    }

    /** Maximum number of calls or tasks allowed to wait for a permit; more are rejected at once. */
    public int getQueueCapacity() {
        return this.queueCapacity;
    }

    /** Maximum time a call or task waits for a permit before it is rejected; zero disables waiting. */
    public Duration getMaxWaitDuration() {
        return this.maxWaitDuration;
    }

    long maxWaitNanos() {
        return this.maxWaitNanos;
    }

    /** Whether waiting calls get permits in arrival order (FIFO); otherwise newest first (LIFO). */
    public boolean isFair() {
        return this.fair;
    }

    /**
     * How the limit adapts to the callee, with {@code maxLimit} equal to {@link #getMaxConcurrentCalls()};
     * {@code null} for a static limit.
     */
    public AdaptiveLimitConfig getAdaptive() {
        return this.adaptive;
    }

    /** Which failed calls an adaptive limit takes as overload signals (drops). */
    public DropClassifier getDropClassifier() {
        return this.dropClassifier;
    }

    /** Whether the limit is found by an adaptive algorithm below {@code maxConcurrentCalls}. */
    public boolean isAdaptive() {
        return this.adaptive != null;
    }

    @Override
    public String toString() {
        return "BulkheadConfig[maxConcurrentCalls=" + this.maxConcurrentCalls + ", queueCapacity=" + this.queueCapacity
                + ", maxWaitDuration=" + this.maxWaitDuration + ", fair=" + this.fair
                + ((this.adaptive != null) ? ", adaptive=" + this.adaptive : "") + "]";
    }

    static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        }
        catch (ArithmeticException ex) {
            return Long.MAX_VALUE;
        }
    }

    /** Validating builder; {@link #build()} names the first invalid field and its value. */
    public static final class Builder {

        private int maxConcurrentCalls = DEFAULT_MAX_CONCURRENT_CALLS;

        private int queueCapacity = DEFAULT_QUEUE_CAPACITY;

        private Duration maxWaitDuration = DEFAULT_MAX_WAIT_DURATION;

        private boolean fair = true;

        private AdaptiveLimitConfig adaptive;

        private DropClassifier dropClassifier = DropClassifier.ofDefaults();

        private Builder() {
        }

        /** Maximum number of calls holding a permit at once; must be at least 1. */
        public Builder maxConcurrentCalls(int maxConcurrentCalls) {
            this.maxConcurrentCalls = maxConcurrentCalls;
            return this;
        }

        /** Maximum number of waiting calls or tasks; must be at least 0 (0 disables waiting). */
        public Builder queueCapacity(int queueCapacity) {
            this.queueCapacity = queueCapacity;
            return this;
        }

        /** Maximum time to wait for a permit; must not be negative (zero disables waiting). */
        public Builder maxWaitDuration(Duration maxWaitDuration) {
            this.maxWaitDuration = maxWaitDuration;
            return this;
        }

        /** Whether permits go to waiting calls in arrival order (default {@code true}). */
        public Builder fair(boolean fair) {
            this.fair = fair;
            return this;
        }

        /**
         * Makes the limit adaptive: {@code adaptive}'s algorithm finds it between its minimum and
         * {@code maxConcurrentCalls}, which becomes its maximum (the default initial limit is lowered to a
         * smaller ceiling); {@code null} (the default) for a static limit.
         */
        public Builder adaptive(AdaptiveLimitConfig adaptive) {
            this.adaptive = adaptive;
            return this;
        }

        /**
         * Which failed calls an adaptive limit takes as overload signals (default: timeouts, refused connections,
         * Spring's 503 and 429 client exceptions).
         */
        public Builder dropClassifier(DropClassifier dropClassifier) {
            this.dropClassifier = Objects.requireNonNull(dropClassifier, "dropClassifier must not be null");
            return this;
        }

        /**
         * Builds the config.
         * @throws IllegalArgumentException naming the invalid field and its value
         */
        public BulkheadConfig build() {
            if (this.maxConcurrentCalls < 1) {
                throw new IllegalArgumentException(
                        "maxConcurrentCalls must be at least 1 but was " + this.maxConcurrentCalls);
            }
            if (this.queueCapacity < 0) {
                throw new IllegalArgumentException(
                        "queueCapacity must be 0 or more but was " + this.queueCapacity);
            }
            if (this.maxWaitDuration == null) {
                throw new IllegalArgumentException("maxWaitDuration must not be null; use Duration.ZERO to disable waiting");
            }
            if (this.maxWaitDuration.isNegative()) {
                throw new IllegalArgumentException(
                        "maxWaitDuration must not be negative but was " + this.maxWaitDuration);
            }
            if (this.adaptive != null && this.adaptive.getMaxLimit() != this.maxConcurrentCalls) {
                try {
                    AdaptiveLimitConfig.Builder ceiling = AdaptiveLimitConfig.from(this.adaptive)
                        .maxLimit(this.maxConcurrentCalls);
                    if (this.adaptive.getInitialLimit() == AdaptiveLimitConfig.DEFAULT_INITIAL_LIMIT
                            && this.maxConcurrentCalls < AdaptiveLimitConfig.DEFAULT_INITIAL_LIMIT) {
                        // The default start is lowered to a smaller ceiling; a chosen one must fit.
                        ceiling.initialLimit(Math.max(this.adaptive.getMinLimit(), this.maxConcurrentCalls));
                    }
                    this.adaptive = ceiling.build();
                }
                catch (IllegalArgumentException ex) {
                    throw new IllegalArgumentException("adaptive limit with maxConcurrentCalls " + this.maxConcurrentCalls
                            + " as its ceiling: " + ex.getMessage(), ex);
                }
            }
            return new BulkheadConfig(this);
        }
    }
}
