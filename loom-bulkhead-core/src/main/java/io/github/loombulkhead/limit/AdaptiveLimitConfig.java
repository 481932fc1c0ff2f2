package io.github.loombulkhead.limit;

import java.util.Locale;

/**
 * Immutable configuration of an adaptive limit: which algorithm, where it starts, the bounds it never leaves, and
 * each algorithm's parameters. Every default was chosen by measurement (see {@code docs/adaptive-limits.md}).
 */
public final class AdaptiveLimitConfig {

    /** Default algorithm. */
    public static final Algorithm DEFAULT_ALGORITHM = Algorithm.GRADIENT;

    /** Default limit before the first sample. */
    public static final int DEFAULT_INITIAL_LIMIT = 20;

    /** Default lowest limit. */
    public static final int DEFAULT_MIN_LIMIT = 5;

    /** Default ceiling. */
    public static final int DEFAULT_MAX_LIMIT = 1000;

    /** Default {@link #getRttTolerance()}. */
    public static final double DEFAULT_RTT_TOLERANCE = 1.2;

    /** Default {@link #getIncreaseRatio()}. */
    public static final double DEFAULT_INCREASE_RATIO = 0.05;

    /** Default {@link #getWindowSamples()}. */
    public static final int DEFAULT_WINDOW_SAMPLES = 16;

    /** Default {@link #getDropBackoff()}. */
    public static final double DEFAULT_DROP_BACKOFF = 0.8;

    /** Default {@link #getNoLoadRttHorizon()}. */
    public static final int DEFAULT_NO_LOAD_RTT_HORIZON = 100;

    /** Default {@link #getBackoffRatio()}. */
    public static final double DEFAULT_BACKOFF_RATIO = 0.9;

    /** Default {@link #getAdditiveIncrease()}. */
    public static final int DEFAULT_ADDITIVE_INCREASE = 1;

    private static final AdaptiveLimitConfig DEFAULTS = custom().build();

    private final Algorithm algorithm;

    private final int initialLimit;

    private final int minLimit;

    private final int maxLimit;

    private final double rttTolerance;

    private final double increaseRatio;

    private final int windowSamples;

    private final double dropBackoff;

    private final int noLoadRttHorizon;

    private final double backoffRatio;

    private final int additiveIncrease;

    private AdaptiveLimitConfig(Builder builder) {
        this.algorithm = builder.algorithm;
        this.initialLimit = builder.initialLimit;
        this.minLimit = builder.minLimit;
        this.maxLimit = builder.maxLimit;
        this.rttTolerance = builder.rttTolerance;
        this.increaseRatio = builder.increaseRatio;
        this.windowSamples = builder.windowSamples;
        this.dropBackoff = builder.dropBackoff;
        this.noLoadRttHorizon = builder.noLoadRttHorizon;
        this.backoffRatio = builder.backoffRatio;
        this.additiveIncrease = builder.additiveIncrease;
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
        return new Builder().algorithm(base.algorithm)
            .initialLimit(base.initialLimit)
            .minLimit(base.minLimit)
            .maxLimit(base.maxLimit)
            .rttTolerance(base.rttTolerance)
            .increaseRatio(base.increaseRatio)
            .windowSamples(base.windowSamples)
            .dropBackoff(base.dropBackoff)
            .noLoadRttHorizon(base.noLoadRttHorizon)
            .backoffRatio(base.backoffRatio)
            .additiveIncrease(base.additiveIncrease);
    }

    /** The algorithm (default {@code gradient}). */
    public Algorithm getAlgorithm() {
        return this.algorithm;
    }

    /** The limit before the first sample (default 20). */
    public int getInitialLimit() {
        return this.initialLimit;
    }

    /** The lowest limit the algorithm proposes (default 5). */
    public int getMinLimit() {
        return this.minLimit;
    }

    /** The ceiling: the highest limit the algorithm proposes (default 1,000). */
    public int getMaxLimit() {
        return this.maxLimit;
    }

    /** Gradient: how far the RTT may exceed the no-load RTT before the limit falls, as a ratio (default 1.2). */
    public double getRttTolerance() {
        return this.rttTolerance;
    }

    /** Gradient: how much the limit grows per RTT near the last limit that caused queueing (default 0.05 = 5 %). */
    public double getIncreaseRatio() {
        return this.increaseRatio;
    }

    /** Gradient: successful calls per measurement window, whose median RTT is compared (default 16). */
    public int getWindowSamples() {
        return this.windowSamples;
    }

    /** Gradient: factor applied to the limit when a call is dropped (default 0.8). */
    public double getDropBackoff() {
        return this.dropBackoff;
    }

    /** Gradient: how long, in no-load RTTs, the lowest window RTT is remembered as the no-load RTT (default 100). */
    public int getNoLoadRttHorizon() {
        return this.noLoadRttHorizon;
    }

    /** AIMD: factor applied to the limit when a call is dropped (default 0.9). */
    public double getBackoffRatio() {
        return this.backoffRatio;
    }

    /** AIMD: permits added per RTT in which the whole limit was in use and nothing was dropped (default 1). */
    public int getAdditiveIncrease() {
        return this.additiveIncrease;
    }

    @Override
    public String toString() {
        return "AdaptiveLimitConfig[algorithm=" + this.algorithm.getName() + ", initialLimit=" + this.initialLimit
                + ", minLimit=" + this.minLimit + ", maxLimit=" + this.maxLimit + ", rttTolerance=" + this.rttTolerance
                + ", increaseRatio=" + this.increaseRatio + ", windowSamples=" + this.windowSamples + ", dropBackoff="
                + this.dropBackoff + ", noLoadRttHorizon=" + this.noLoadRttHorizon + ", backoffRatio="
                + this.backoffRatio + ", additiveIncrease=" + this.additiveIncrease + "]";
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
         * The algorithm named {@code name}, ignoring case.
         * @throws IllegalArgumentException naming the value and the known names
         */
        public static Algorithm ofName(String name) {
            for (Algorithm algorithm : values()) {
                if (algorithm.getName().equalsIgnoreCase(String.valueOf(name).trim())) {
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

        private double rttTolerance = DEFAULT_RTT_TOLERANCE;

        private double increaseRatio = DEFAULT_INCREASE_RATIO;

        private int windowSamples = DEFAULT_WINDOW_SAMPLES;

        private double dropBackoff = DEFAULT_DROP_BACKOFF;

        private int noLoadRttHorizon = DEFAULT_NO_LOAD_RTT_HORIZON;

        private double backoffRatio = DEFAULT_BACKOFF_RATIO;

        private int additiveIncrease = DEFAULT_ADDITIVE_INCREASE;

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

        /** Gradient: RTT over no-load RTT tolerated before the limit falls; above 1.0 and at most 10. */
        public Builder rttTolerance(double rttTolerance) {
            this.rttTolerance = rttTolerance;
            return this;
        }

        /** Gradient: growth per RTT near the last queueing limit; above 0 and at most 1. */
        public Builder increaseRatio(double increaseRatio) {
            this.increaseRatio = increaseRatio;
            return this;
        }

        /** Gradient: samples per window; between 1 and 1,024. */
        public Builder windowSamples(int windowSamples) {
            this.windowSamples = windowSamples;
            return this;
        }

        /** Gradient: factor on a drop; at least 0.1 and below 1. */
        public Builder dropBackoff(double dropBackoff) {
            this.dropBackoff = dropBackoff;
            return this;
        }

        /** Gradient: no-load RTT memory in RTTs; at least 2. */
        public Builder noLoadRttHorizon(int noLoadRttHorizon) {
            this.noLoadRttHorizon = noLoadRttHorizon;
            return this;
        }

        /** AIMD: factor on a drop; at least 0.1 and below 1. */
        public Builder backoffRatio(double backoffRatio) {
            this.backoffRatio = backoffRatio;
            return this;
        }

        /** AIMD: permits added per full RTT; at least 1. */
        public Builder additiveIncrease(int additiveIncrease) {
            this.additiveIncrease = additiveIncrease;
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
            check("rttTolerance", this.rttTolerance, 1.0, false, 10.0, true);
            check("increaseRatio", this.increaseRatio, 0.0, false, 1.0, true);
            if (this.windowSamples < 1 || this.windowSamples > 1024) {
                throw new IllegalArgumentException(
                        "windowSamples must be between 1 and 1024 but was " + this.windowSamples);
            }
            check("dropBackoff", this.dropBackoff, 0.1, true, 1.0, false);
            if (this.noLoadRttHorizon < 2) {
                throw new IllegalArgumentException(
                        "noLoadRttHorizon must be at least 2 but was " + this.noLoadRttHorizon);
            }
            check("backoffRatio", this.backoffRatio, 0.1, true, 1.0, false);
            if (this.additiveIncrease < 1) {
                throw new IllegalArgumentException(
                        "additiveIncrease must be at least 1 but was " + this.additiveIncrease);
            }
            return new AdaptiveLimitConfig(this);
        }

        private static void check(String field, double value, double low, boolean lowIncluded, double high,
                boolean highIncluded) {
            boolean aboveLow = lowIncluded ? value >= low : value > low;
            boolean belowHigh = highIncluded ? value <= high : value < high;
            if (Double.isNaN(value) || !aboveLow || !belowHigh) {
                throw new IllegalArgumentException(field + " must be " + (lowIncluded ? "at least " : "above ") + low
                        + " and " + (highIncluded ? "at most " : "below ") + high + " but was " + value);
            }
        }
    }
}
