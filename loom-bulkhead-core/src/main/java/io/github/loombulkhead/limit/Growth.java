package io.github.loombulkhead.limit;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.DoubleAdder;

/**
 * The gradient's growth, paced per call that started with at least half the limit in use and did not queue: doubling
 * per RTT while starting; 50 % per RTT back up to the return target (the knee, or half the limit the last overload
 * began at); {@code increaseRatio} per RTT above it. Once past the limit of the last overload (or 1.3 × the knee)
 * without queueing, a probe doubles the step per quiet window while it stays below 50 % per RTT (5, 10, 20, 40 % with
 * the default ratio); the doubling that would reach 50 % ends the probe, and the step is {@code increaseRatio} again
 * until a window that is not quiet or a decrease. The limit never grows beyond 1.3 × the most calls in flight that a
 * call started with and finished without queueing. Calls add growth without locks; the rest runs under the
 * algorithm's lock.
 */
final class Growth {

    private static final double STARTUP = 1.0;

    private static final double RETURN = 0.5;

    /** A probe's step stays below this per RTT: beyond, the latency that would stop it comes a round trip late. */
    private static final double PROBE_END = 0.5;

    private static final double HEADROOM = 1.3;

    private final double increaseRatio;

    private final int maxLimit;

    private final DoubleAdder pending = new DoubleAdder();

    private final AtomicInteger maxQuietInflight = new AtomicInteger();

    private volatile double perCall = STARTUP;

    /** Guarded by the algorithm's lock: windows in a row past where probing speeds up, without queueing. */
    private int probes;

    /** Guarded by the algorithm's lock: growing back to the return target at {@code RETURN}. */
    private boolean returning;

    Growth(AdaptiveLimitConfig config) {
        this.increaseRatio = config.getIncreaseRatio();
        this.maxLimit = config.getMaxLimit();
    }

    /** The growth each paced call adds now, as a fraction of one permit; 0 while a latency decrease holds it. */
    double perCall() {
        return this.perCall;
    }

    /** A call that started with {@code inflight} calls in flight finished without queueing. */
    void quiet(int inflight) {
        this.maxQuietInflight.accumulateAndGet(inflight, Math::max);
    }

    /** The most calls in flight that a call started with and finished without queueing, since the last restart. */
    int proven() {
        return this.maxQuietInflight.get();
    }

    /** Adds one paced call's growth. */
    void add(double growth) {
        this.pending.add(growth);
    }

    /** Whether at least one permit of growth waits to be applied. */
    boolean isPending() {
        return this.pending.sum() >= 1;
    }

    /** Takes the growth the calls added since the last time. */
    double take() {
        return this.pending.sumThenReset();
    }

    /**
     * Guarded by lock. Returns {@code limit} grown by {@code growth}, capped by the headroom, by {@code target} while
     * below it, and by the maximum limit; past {@code target}, growth slows to {@code increaseRatio}.
     */
    double grow(double limit, double growth, double target) {
        double cap = Math.max(limit, HEADROOM * this.maxQuietInflight.get() + 1);
        if (limit < target) {
            cap = Math.min(cap, target);
        }
        double grown = Math.min(this.maxLimit, Math.min(cap, limit + growth));
        if (grown >= target && this.returning) {
            this.returning = false;
            this.perCall = this.increaseRatio;
        }
        return grown;
    }

    /**
     * Guarded by lock. Chooses the pace after a window without queueing.
     * @param probing whether the limit is past where probing speeds up and the window was quiet
     */
    void windowQuiet(boolean startup, double limit, double target, boolean probing) {
        this.returning = !startup && limit < target;
        if (startup) {
            this.perCall = STARTUP;
        }
        else if (this.returning) {
            this.probes = 0;
            this.perCall = RETURN;
        }
        else if (probing) {
            this.probes++;
            double step = this.increaseRatio * (1 << Math.min(20, this.probes));
            this.perCall = (step < PROBE_END) ? step : this.increaseRatio;
        }
        else {
            this.probes = 0;
            this.perCall = this.increaseRatio;
        }
    }

    /** Guarded by lock. Holds growth until the next window decides (after a latency decrease). */
    void hold() {
        this.returning = false;
        this.perCall = 0;
    }

    /** Guarded by lock. Starts afresh after a decrease to {@code limit}: back to {@code target}, then slower. */
    void restart(double limit, double target) {
        this.probes = 0;
        this.returning = limit < target;
        this.perCall = this.returning ? RETURN : this.increaseRatio;
        this.pending.reset();
        this.maxQuietInflight.set(0);
    }
}
