package io.github.loombulkhead.benchmarks.adaptive;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Envoy's adaptive-concurrency gradient controller, written from its documentation with its documented defaults where
 * it has them (the burst headroom as its implementation computes it): every {@value #UPDATE_INTERVAL_MILLIS} ms the
 * median latency of the window (sampleRTT) gives {@code gradient = (minRTT + minRTT × 25 %) / sampleRTT}, clamped to
 * [0.5, 2], and {@code limit = gradient × limit + sqrt(gradient × limit)}. minRTT is measured at start and every
 * {@value #MIN_RTT_INTERVAL_SECONDS} s (+ up to 15 % jitter), and after 5 windows in a row at the minimum, by pinning
 * the limit to 3 until 50 calls that started in the measurement finished; their median is the new minRTT and the
 * limit goes back to its value before. Neither interval has a default in Envoy: the update interval is the best one
 * measured, the minRTT interval the 60 s of Envoy's documented example.
 */
final class EnvoyGradient implements SimulatedLimit {

    /** Envoy has no default; the best of 350–800 ms in steps of 50, five seeds (docs/adaptive-limits.md). */
    static final long UPDATE_INTERVAL_MILLIS = 500;

    private final long updateInterval;

    /**
     * Envoy has no default; 60 s is its documented example. Each measurement holds the limit at 3 for about five
     * seconds against the standard callee, so longer intervals lose less (docs/adaptive-limits.md).
     */
    static final long MIN_RTT_INTERVAL_SECONDS = 60;

    private final long minRttInterval;

    private static final double JITTER = 0.15;

    private static final int MIN_CONCURRENCY = 3;

    private static final int MIN_RTT_REQUESTS = 50;

    private static final double BUFFER = 0.25;

    private final int maxLimit;

    private final SplittableRandom random;

    private long[] samples = new long[1024];

    private int sampleCount;

    private int limit = MIN_CONCURRENCY;

    private int deferredLimit = MIN_CONCURRENCY;

    private boolean measuringMinRtt;

    private long epoch = Long.MIN_VALUE;

    private long minRtt;

    private long nextWindowEnd = Long.MIN_VALUE;

    private long nextMinRttMeasurement;

    private int windowsAtMinimum;

    EnvoyGradient(int maxLimit, long seed) {
        this(maxLimit, seed, UPDATE_INTERVAL_MILLIS);
    }

    /** With another update interval: Envoy has no default, so the tables use the best one measured. */
    EnvoyGradient(int maxLimit, long seed, long updateIntervalMillis) {
        this(maxLimit, seed, updateIntervalMillis, MIN_RTT_INTERVAL_SECONDS);
    }

    /** With other intervals between updates of the limit and between measurements of minRTT. */
    EnvoyGradient(int maxLimit, long seed, long updateIntervalMillis, long minRttIntervalSeconds) {
        this.updateInterval = updateIntervalMillis * 1_000_000;
        this.minRttInterval = minRttIntervalSeconds * 1_000_000_000L;
        this.maxLimit = maxLimit;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public int limit() {
        return this.limit;
    }

    @Override
    public void onSample(long startNanos, long rttNanos, int inflight, boolean dropped) {
        if (startNanos < this.epoch) {
            return;
        }
        if (this.sampleCount == this.samples.length) {
            this.samples = Arrays.copyOf(this.samples, this.samples.length * 2);
        }
        this.samples[this.sampleCount++] = rttNanos;
        if (this.measuringMinRtt && this.sampleCount >= MIN_RTT_REQUESTS) {
            this.minRtt = median();
            this.measuringMinRtt = false;
            this.limit = this.deferredLimit;
            long now = startNanos + rttNanos;
            this.nextMinRttMeasurement = now + (long) (this.minRttInterval * (1 + JITTER * this.random.nextDouble()));
            this.nextWindowEnd = now + this.updateInterval;
        }
    }

    @Override
    public void onTick(long nowNanos) {
        if (this.nextWindowEnd == Long.MIN_VALUE) {
            startMinRttMeasurement(nowNanos);
            return;
        }
        if (this.measuringMinRtt) {
            return;
        }
        if (nowNanos >= this.nextMinRttMeasurement || this.windowsAtMinimum >= 5) {
            startMinRttMeasurement(nowNanos);
            return;
        }
        if (nowNanos >= this.nextWindowEnd) {
            this.nextWindowEnd = nowNanos + this.updateInterval;
            if (this.sampleCount > 0) {
                long sampleRtt = median();
                double gradient = Math.max(0.5, Math.min(2.0, (this.minRtt * (1 + BUFFER)) / sampleRtt));
                // Envoy's burst headroom is the square root of the scaled limit (GradientController::calculateNewLimit).
                double scaled = gradient * this.limit;
                int newLimit = (int) (scaled + Math.sqrt(scaled));
                newLimit = Math.max(MIN_CONCURRENCY, Math.min(this.maxLimit, newLimit));
                this.windowsAtMinimum = (newLimit == MIN_CONCURRENCY && this.limit == MIN_CONCURRENCY)
                        ? this.windowsAtMinimum + 1 : 0;
                this.limit = newLimit;
            }
        }
    }

    private void startMinRttMeasurement(long now) {
        this.measuringMinRtt = true;
        this.deferredLimit = this.limit;
        this.limit = MIN_CONCURRENCY;
        this.sampleCount = 0;
        this.epoch = now;
        this.windowsAtMinimum = 0;
        if (this.nextWindowEnd == Long.MIN_VALUE) {
            this.nextWindowEnd = now;
        }
    }

    private long median() {
        long[] sorted = Arrays.copyOf(this.samples, this.sampleCount);
        this.sampleCount = 0;
        Arrays.sort(sorted);
        return sorted[(sorted.length - 1) / 2];
    }
}
