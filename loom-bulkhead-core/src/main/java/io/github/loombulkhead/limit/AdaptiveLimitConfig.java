package io.github.loombulkhead.limit;

import java.util.Locale;
import java.util.Objects;

/**
 * Immutable configuration of an adaptive limit: which algorithm, where it starts, the bounds it never leaves and each
 * algorithm's parameters. The defaults were chosen by measurement against a queueing callee in
 * {@code AdaptiveLimitSimulation} (loom-bulkhead-benchmarks); {@code docs/adaptive-limits.md} shows the runs.
 */
public final class AdaptiveLimitConfig {

    /** Default {@link #getAlgorithm()}. */
    public static final Algorithm DEFAULT_ALGORITHM = Algorithm.GRADIENT;

    /** Default {@link #getInitialLimit()}. */
    public static final int DEFAULT_INITIAL_LIMIT = 100;

    /** Default {@link #getMinLimit()}. */
    public static final int DEFAULT_MIN_LIMIT = 1;

    /** Default {@link #getMaxLimit()}. */
    public static final int DEFAULT_MAX_LIMIT = 1000;

    /** Default {@link #getIncreaseRatio()}. */
    public static final double DEFAULT_INCREASE_RATIO = 0.05;

    /** Default {@link #getRttTolerance()}. */
    public static final double DEFAULT_RTT_TOLERANCE = 1.15;

    /** Default {@link #getWindowSamples()}. */
    public static final int DEFAULT_WINDOW_SAMPLES = 16;

    /** Default {@link #getDropBackoff()}. */
    public static final double DEFAULT_DROP_BACKOFF = 0.8;

    /** Default {@link #getDropTolerance()}. */
    public static final double DEFAULT_DROP_TOLERANCE = 0.05;

    /** Default {@link #getBackoffRatio()}. */
    public static final double DEFAULT_BACKOFF_RATIO = 0.75;

    private static final AdaptiveLimitConfig DEFAULTS = custom().build();

    private final Algorithm algorithm;

    private final int initialLimit;

    private final int minLimit;

    private final int maxLimit;

    private final double increaseRatio;

    private final double rttTolerance;

    private final int windowSamples;

    private final double dropBackoff;

    private final double dropTolerance;

    private final double backoffRatio;

    private AdaptiveLimitConfig(Builder builder) {
        this.algorithm = builder.algorithm;
        this.initialLimit = builder.initialLimit;
        this.minLimit = builder.minLimit;
        this.maxLimit = builder.maxLimit;
        this.increaseRatio = builder.increaseRatio;
        this.rttTolerance = builder.rttTolerance;
        this.windowSamples = builder.windowSamples;
        this.dropBackoff = builder.dropBackoff;
        this.dropTolerance = builder.dropTolerance;
        this.backoffRatio = builder.backoffRatio;
    }

    /** The defaults described on each getter. */
    public static AdaptiveLimitConfig ofDefaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder custom() {
        return new Builder();
    }

    /** A builder starting from {@code base}. */
    public static Builder from(AdaptiveLimitConfig base) {
        if (base == null) {
            throw new IllegalArgumentException("base config must not be null");
        }
        return new Builder().algorithm(base.algorithm)
            .initialLimit(base.initialLimit)
            .minLimit(base.minLimit)
            .maxLimit(base.maxLimit)
            .increaseRatio(base.increaseRatio)
            .rttTolerance(base.rttTolerance)
            .windowSamples(base.windowSamples)
            .dropBackoff(base.dropBackoff)
            .dropTolerance(base.dropTolerance)
            .backoffRatio(base.backoffRatio);
    }

    /** The algorithm (default {@code gradient}). */
    public Algorithm getAlgorithm() {
        return this.algorithm;
    }

    /** The limit before the first sample (default 100; a bulkhead with a lower ceiling starts at its ceiling). */
    public int getInitialLimit() {
        return this.initialLimit;
    }

    /** The lowest limit the algorithm proposes (default 1). */
    public int getMinLimit() {
        return this.minLimit;
    }

    /** The ceiling: the highest limit the algorithm proposes (default 1,000). */
    public int getMaxLimit() {
        return this.maxLimit;
    }

    /**
     * Growth per RTT once the algorithm knows where the callee starts to queue (default 0.05): gradient grows the limit
     * by this ratio per RTT; AIMD adds this ratio of the limit it last fell to, in permits, per RTT.
     */
    public double getIncreaseRatio() {
        return this.increaseRatio;
    }

    /** Gradient: how far the mean RTT of a window may exceed the no-load RTT before the limit falls (default 1.15). */
    public double getRttTolerance() {
        return this.rttTolerance;
    }

    /**
     * Gradient: the fewest calls a window compares, whatever its length; both algorithms: the fewest calls finished
     * since a decrease before a collapse can count (default 16).
     */
    public int getWindowSamples() {
        return this.windowSamples;
    }

    /** Gradient: factor applied to the limit when calls are dropped beyond the tolerance (default 0.8). */
    public double getDropBackoff() {
        return this.dropBackoff;
    }

    /**
     * Gradient: fraction of a round's calls that may be dropped before the limit falls (default 0.05 = 5 %); three
     * standard deviations more for drops slower than the no-load RTT while the callee shows no queue.
     */
    public double getDropTolerance() {
        return this.dropTolerance;
    }

    /**
     * AIMD: factor applied to the limit after a round with more drops than fail whatever the load (default 0.75); 0.9
     * instead, if higher, when the callee refused the call at once.
     */
    public double getBackoffRatio() {
        return this.backoffRatio;
    }

    /** Equal when every setting is. */
    @Override
    public boolean equals(Object other) {
        return this == other || (other instanceof AdaptiveLimitConfig that && this.algorithm == that.algorithm
                && this.initialLimit == that.initialLimit && this.minLimit == that.minLimit
                && this.maxLimit == that.maxLimit && Double.compare(this.increaseRatio, that.increaseRatio) == 0
                && Double.compare(this.rttTolerance, that.rttTolerance) == 0 && this.windowSamples == that.windowSamples
                && Double.compare(this.dropBackoff, that.dropBackoff) == 0
                && Double.compare(this.dropTolerance, that.dropTolerance) == 0
                && Double.compare(this.backoffRatio, that.backoffRatio) == 0);
    }

    @Override
    public int hashCode() {
        return Objects.hash(this.algorithm, this.initialLimit, this.minLimit, this.maxLimit, this.increaseRatio,
                this.rttTolerance, this.windowSamples, this.dropBackoff, this.dropTolerance, this.backoffRatio);
    }

    @Override
    public String toString() {
        return "AdaptiveLimitConfig[algorithm=" + this.algorithm.getName() + ", initialLimit=" + this.initialLimit
                + ", minLimit=" + this.minLimit + ", maxLimit=" + this.maxLimit + ", increaseRatio="
                + this.increaseRatio + ", rttTolerance=" + this.rttTolerance + ", windowSamples=" + this.windowSamples
                + ", dropBackoff=" + this.dropBackoff + ", dropTolerance=" + this.dropTolerance + ", backoffRatio="
                + this.backoffRatio + "]";
    }

    /** The algorithms, by the names configuration uses. */
    public enum Algorithm {

        /** Latency gradient: compares the current RTT with the no-load RTT; also backs off on drops. */
        GRADIENT,

        /** Loss based: additive increase, multiplicative decrease on drops only. */
        AIMD;

        /** The configuration name: {@code gradient} or {@code aimd}. */
        public String getName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * The algorithm named {@code name}, ignoring case and surrounding blanks.
         * @throws IllegalArgumentException naming the value and the known names
         */
        public static Algorithm ofName(String name) {
            for (Algorithm algorithm : values()) {
                if (name != null && algorithm.getName().equalsIgnoreCase(name.trim())) {
                    return algorithm;
                }
            }
            throw new IllegalArgumentException("algorithm must be one of gradient, aimd but was '" + name + "'");
        }
    }

    /** Validating builder; {@link #build()} names the first invalid field and its value. */
    public static final class Builder {

        private Algorithm algorithm = DEFAULT_ALGORITHM;

        private int initialLimit = DEFAULT_INITIAL_LIMIT;

        private int minLimit = DEFAULT_MIN_LIMIT;

        private int maxLimit = DEFAULT_MAX_LIMIT;

        private double increaseRatio = DEFAULT_INCREASE_RATIO;

        private double rttTolerance = DEFAULT_RTT_TOLERANCE;

        private int windowSamples = DEFAULT_WINDOW_SAMPLES;

        private double dropBackoff = DEFAULT_DROP_BACKOFF;

        private double dropTolerance = DEFAULT_DROP_TOLERANCE;

        private double backoffRatio = DEFAULT_BACKOFF_RATIO;

        private Builder() {
        }

        /** The algorithm; must not be null. */
        public Builder algorithm(Algorithm algorithm) {
            this.algorithm = algorithm;
            return this;
        }

        /** The limit before the first sample; within [minLimit, maxLimit]. */
        public Builder initialLimit(int initialLimit) {
            this.initialLimit = initialLimit;
            return this;
        }

        /** The lowest limit; at least 1. */
        public Builder minLimit(int minLimit) {
            this.minLimit = minLimit;
            return this;
        }

        /** The ceiling; at least minLimit. */
        public Builder maxLimit(int maxLimit) {
            this.maxLimit = maxLimit;
            return this;
        }

        /** Growth per RTT; above 0 and at most 1. */
        public Builder increaseRatio(double increaseRatio) {
            this.increaseRatio = increaseRatio;
            return this;
        }

        /** Gradient: tolerated RTT over no-load RTT; above 1 and at most 10. */
        public Builder rttTolerance(double rttTolerance) {
            this.rttTolerance = rttTolerance;
            return this;
        }

        /** Gradient: fewest calls per window; between 1 and 10,000. */
        public Builder windowSamples(int windowSamples) {
            this.windowSamples = windowSamples;
            return this;
        }

        /** Gradient: factor on drops; at least 0.1 and below 1. */
        public Builder dropBackoff(double dropBackoff) {
            this.dropBackoff = dropBackoff;
            return this;
        }

        /** Gradient: tolerated drop fraction per round; at least 0 and below 1. */
        public Builder dropTolerance(double dropTolerance) {
            this.dropTolerance = dropTolerance;
            return this;
        }

        /**
         * AIMD: factor on a round with more drops than fail whatever the load (0.9 instead, if higher, when the callee
         * refused the call at once); at least 0.1 and below 1.
         */
        public Builder backoffRatio(double backoffRatio) {
            this.backoffRatio = backoffRatio;
            return this;
        }

        /**
         * Builds the config.
         * @throws IllegalArgumentException naming the invalid field and its value
         */
        public AdaptiveLimitConfig build() {
            if (this.algorithm == null) {
                throw new IllegalArgumentException("algorithm must not be null; use gradient or aimd");
            }
            if (this.minLimit < 1) {
                throw new IllegalArgumentException("minLimit must be at least 1 but was " + this.minLimit);
            }
            if (this.maxLimit < this.minLimit) {
                throw new IllegalArgumentException("maxLimit (" + this.maxLimit + ") must be at least minLimit ("
                        + this.minLimit + ")");
            }
            if (this.initialLimit < this.minLimit || this.initialLimit > this.maxLimit) {
                throw new IllegalArgumentException("initialLimit (" + this.initialLimit + ") must be within minLimit ("
                        + this.minLimit + ") and maxLimit (" + this.maxLimit + ")");
            }
            check("increaseRatio", this.increaseRatio, 0.0, false, 1.0, true);
            check("rttTolerance", this.rttTolerance, 1.0, false, 10.0, true);
            if (this.windowSamples < 1 || this.windowSamples > 10_000) {
                throw new IllegalArgumentException(
                        "windowSamples must be between 1 and 10000 but was " + this.windowSamples);
            }
            check("dropBackoff", this.dropBackoff, 0.1, true, 1.0, false);
            check("dropTolerance", this.dropTolerance, 0.0, true, 1.0, false);
            check("backoffRatio", this.backoffRatio, 0.1, true, 1.0, false);
            return new AdaptiveLimitConfig(this);
        }

        private static void check(String field, double value, double low, boolean lowIncluded, double high,
                boolean highIncluded) {
            boolean aboveLow = lowIncluded ? value >= low : value > low;
            boolean belowHigh = highIncluded ? value <= high : value < high;
            if (Double.isNaN(value) || !aboveLow || !belowHigh) {
                throw new IllegalArgumentException(field + " must be " + (lowIncluded ? "at least " : "above ")
                        + number(low) + " and " + (highIncluded ? "at most " : "below ") + number(high) + " but was "
                        + value);
            }
        }

        private static String number(double value) {
            return (value == Math.rint(value)) ? String.valueOf((long) value) : String.valueOf(value);
        }
    }
}
