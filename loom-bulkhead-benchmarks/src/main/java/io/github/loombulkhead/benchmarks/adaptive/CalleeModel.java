package io.github.loombulkhead.benchmarks.adaptive;

import java.time.Duration;

/**
 * The callee and caller settings every scenario shares: mean service time and its log-normal spread (sigma), the
 * caller's read timeout, how long a call may wait for a permit, the tick and the ceiling of every algorithm.
 */
record CalleeModel(Duration serviceTime, double serviceSpread, Duration readTimeout, Duration maxWait, Duration tick,
        int ceiling, boolean servesAbandonedCalls) {

    /** 300 ms, sigma 0.1, read timeout 500 ms (the sample's callee), 1 s max wait, 10 ms tick, ceiling 1,000. */
    static CalleeModel standard() {
        return new CalleeModel(Duration.ofMillis(300), 0.1, Duration.ofMillis(500), Duration.ofSeconds(1),
                Duration.ofMillis(10), 1000, true);
    }

    /** The same with another log-normal spread of the service time. */
    CalleeModel withServiceSpread(double sigma) {
        return new CalleeModel(this.serviceTime, sigma, this.readTimeout, this.maxWait, this.tick, this.ceiling, this.servesAbandonedCalls);
    }

    /** The same with another read timeout. */
    CalleeModel withReadTimeout(Duration timeout) {
        return new CalleeModel(this.serviceTime, this.serviceSpread, timeout, this.maxWait, this.tick, this.ceiling, this.servesAbandonedCalls);
    }

    /** The same with another maximum wait for a permit. */
    CalleeModel withMaxWait(Duration wait) {
        return new CalleeModel(this.serviceTime, this.serviceSpread, this.readTimeout, wait, this.tick, this.ceiling, this.servesAbandonedCalls);
    }

    /** The same, with a callee that skips queued calls whose caller already gave up (or serves them anyway). */
    CalleeModel withServesAbandonedCalls(boolean serves) {
        return new CalleeModel(this.serviceTime, this.serviceSpread, this.readTimeout, this.maxWait, this.tick,
                this.ceiling, serves);
    }

    /** How the tables describe this callee with {@code workers} workers. */
    String describe(int workers) {
        return String.format(java.util.Locale.ROOT, "%d workers, log-normal service time with mean %d ms "
                + "(sigma %.2f, p99 %d ms), read timeout %d ms, %s; callers wait for a permit at most %d ms; "
                + "every algorithm capped at %,d", workers, this.serviceTime.toMillis(), this.serviceSpread,
                unloadedP99Nanos() / 1_000_000, this.readTimeout.toMillis(),
                this.servesAbandonedCalls ? "the callee still serves calls whose caller gave up"
                        : "the callee skips queued calls whose caller gave up",
                this.maxWait.toMillis(), this.ceiling);
    }

    /** The 99th percentile of the service time: the p99 of a call on an idle callee. */
    long unloadedP99Nanos() {
        // Log-normal with mean serviceTime: median = mean × exp(-sigma²/2), p99 = median × exp(2.326 sigma).
        double sigma = this.serviceSpread;
        return (long) (this.serviceTime.toNanos() * Math.exp(-sigma * sigma / 2 + 2.3263478740 * sigma));
    }
}
