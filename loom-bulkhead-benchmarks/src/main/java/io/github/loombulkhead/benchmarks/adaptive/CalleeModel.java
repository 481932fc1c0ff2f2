package io.github.loombulkhead.benchmarks.adaptive;

import java.time.Duration;

/**
 * The callee and caller settings every scenario shares: mean service time and its log-normal spread (sigma), the
 * share of calls that stall whatever the load, the caller's read timeout, how long a call may wait for a permit, the
 * tick and the ceiling of every algorithm, whether the callee serves queued calls whose caller gave up, and whether
 * it queues a call that finds every worker busy or rejects it at once.
 */
record CalleeModel(Duration serviceTime, double serviceSpread, double stallShare, Duration readTimeout,
        Duration maxWait, Duration tick, int ceiling, boolean servesAbandonedCalls, boolean rejectsWhenFull) {

    /** How long a callee that rejects a call takes to answer (a {@code 429} or {@code 503} sent at once). */
    static final Duration REJECTION = Duration.ofMillis(1);

    /** How many times its drawn service time a stalled call takes. */
    static final int STALL_FACTOR = 10;

    /**
     * 300 ms, sigma 0.1, no stalls, read timeout 500 ms (the sample's callee), 1 s max wait, 10 ms tick, ceiling
     * 1,000.
     */
    static CalleeModel standard() {
        return new CalleeModel(Duration.ofMillis(300), 0.1, 0, Duration.ofMillis(500), Duration.ofSeconds(1),
                Duration.ofMillis(10), 1000, true, false);
    }

    /** The same with another log-normal spread of the service time. */
    CalleeModel withServiceSpread(double sigma) {
        return new CalleeModel(this.serviceTime, sigma, this.stallShare, this.readTimeout, this.maxWait, this.tick,
                this.ceiling, this.servesAbandonedCalls, this.rejectsWhenFull);
    }

    /**
     * The same with {@code share} of the calls (0 to 1) taking {@value #STALL_FACTOR} times their service time,
     * however loaded the callee is: a lock, a cold cache or a pause of the callee's own process.
     */
    CalleeModel withStallShare(double share) {
        return new CalleeModel(this.serviceTime, this.serviceSpread, share, this.readTimeout, this.maxWait, this.tick,
                this.ceiling, this.servesAbandonedCalls, this.rejectsWhenFull);
    }

    /** The same with another read timeout. */
    CalleeModel withReadTimeout(Duration timeout) {
        return new CalleeModel(this.serviceTime, this.serviceSpread, this.stallShare, timeout, this.maxWait, this.tick,
                this.ceiling, this.servesAbandonedCalls, this.rejectsWhenFull);
    }

    /** The same with another maximum wait for a permit. */
    CalleeModel withMaxWait(Duration wait) {
        return new CalleeModel(this.serviceTime, this.serviceSpread, this.stallShare, this.readTimeout, wait,
                this.tick, this.ceiling, this.servesAbandonedCalls, this.rejectsWhenFull);
    }

    /** The same, with a callee that skips queued calls whose caller already gave up (or serves them anyway). */
    CalleeModel withServesAbandonedCalls(boolean serves) {
        return new CalleeModel(this.serviceTime, this.serviceSpread, this.stallShare, this.readTimeout, this.maxWait,
                this.tick, this.ceiling, serves, this.rejectsWhenFull);
    }

    /**
     * The same, with a callee that rejects a call finding every worker busy within {@link #REJECTION} (a server-side
     * limiter answering {@code 429}), or queues it.
     */
    CalleeModel withRejectsWhenFull(boolean rejects) {
        return new CalleeModel(this.serviceTime, this.serviceSpread, this.stallShare, this.readTimeout, this.maxWait,
                this.tick, this.ceiling, this.servesAbandonedCalls, rejects);
    }

    /** How the tables describe this callee with {@code workers} workers. */
    String describe(int workers) {
        String stalls = (this.stallShare > 0) ? String.format(java.util.Locale.ROOT,
                ", %s %% of the calls stalling %d times as long whatever the load (left out of that p99)",
                percent(this.stallShare), STALL_FACTOR) : "";
        return String.format(java.util.Locale.ROOT, "%d workers, log-normal service time with mean %d ms "
                + "(sigma %.2f, p99 %d ms)%s, read timeout %d ms, %s; callers wait for a permit at most %d ms; "
                + "every algorithm capped at %,d", workers, this.serviceTime.toMillis(), this.serviceSpread,
                unloadedP99Nanos() / 1_000_000, stalls, this.readTimeout.toMillis(),
                this.rejectsWhenFull ? "the callee rejects a call that finds every worker busy within "
                        + REJECTION.toMillis() + " ms (no queue)"
                        : this.servesAbandonedCalls ? "the callee still serves calls whose caller gave up"
                                : "the callee skips queued calls whose caller gave up",
                this.maxWait.toMillis(), this.ceiling);
    }

    private static String percent(double share) {
        return java.math.BigDecimal.valueOf(share * 100).stripTrailingZeros().toPlainString();
    }

    /** The 99th percentile of the service time without stalls: the p99 of a call on an idle callee. */
    long unloadedP99Nanos() {
        // Log-normal with mean serviceTime: median = mean × exp(-sigma²/2), p99 = median × exp(2.326 sigma).
        double sigma = this.serviceSpread;
        return (long) (this.serviceTime.toNanos() * Math.exp(-sigma * sigma / 2 + 2.3263478740 * sigma));
    }
}
