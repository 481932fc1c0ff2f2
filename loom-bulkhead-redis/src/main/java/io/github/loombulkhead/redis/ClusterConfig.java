package io.github.loombulkhead.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * Immutable configuration of one cluster bulkhead: how long a lease lives without renewal, how long leases no call
 * uses stay with the process, and what happens while Redis cannot be reached. Defaults: 5 s leases, 1 s idle linger,
 * {@link ClusterFallback#LOCAL}.
 */
public final class ClusterConfig {

    /** Default time a process keeps its permits after its last renewal. */
    public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(5);

    /** Default time leases no call uses stay with the process while no other process waits for permits. */
    public static final Duration DEFAULT_IDLE_LINGER = Duration.ofSeconds(1);

    private static final Duration MIN_LEASE_DURATION = Duration.ofMillis(300);

    /** The longest time between two renewals of any process, whatever its lease. */
    static final Duration MAX_RENEW_PERIOD = Duration.ofSeconds(1);

    private final Duration leaseDuration;

    private final Duration idleLinger;

    private final ClusterFallback fallback;

    private ClusterConfig(Builder builder) {
        this.leaseDuration = builder.leaseDuration;
        this.idleLinger = builder.idleLinger;
        this.fallback = builder.fallback;
    }

    public static ClusterConfig ofDefaults() {
        return custom().build();
    }

    public static Builder custom() {
        return new Builder();
    }

    /** How long a process keeps its permits after its last renewal: a dead process's permits come back after that. */
    public Duration getLeaseDuration() {
        return this.leaseDuration;
    }

    /**
     * How long leases no call uses stay with this process after its last call ended, while no other process waits for
     * permits: a call that comes within it finds a permit without a round trip to Redis. Another process that queues
     * for permits gets them back at once (it announces itself), whatever this says.
     */
    public Duration getIdleLinger() {
        return this.idleLinger;
    }

    /** What happens while Redis cannot be reached. */
    public ClusterFallback getFallback() {
        return this.fallback;
    }

    /** How often a process renews its leases (and reaps those of dead processes): a third of the lease, at most 1 s. */
    Duration renewPeriod() {
        Duration third = this.leaseDuration.dividedBy(3);
        return (third.compareTo(MAX_RENEW_PERIOD) < 0) ? third : MAX_RENEW_PERIOD;
    }

    /**
     * How long a Redis that lost its state grants nothing new after this process's script call found it so: until
     * every live process has renewed and claimed what it uses. Any process renews at least every
     * {@link #MAX_RENEW_PERIOD}, whatever its lease, so twice that (a second for its client to reach the restarted
     * Redis) covers processes with a longer lease than this one; and never less than this process's own lease.
     */
    Duration settlePeriod() {
        Duration floor = MAX_RENEW_PERIOD.multipliedBy(2);
        return (this.leaseDuration.compareTo(floor) > 0) ? this.leaseDuration : floor;
    }

    @Override
    public String toString() {
        return "ClusterConfig[leaseDuration=" + this.leaseDuration + ", idleLinger=" + this.idleLinger + ", fallback="
                + this.fallback + "]";
    }

    /** Validating builder; {@link #build()} names the invalid field and its value. */
    public static final class Builder {

        private Duration leaseDuration = DEFAULT_LEASE_DURATION;

        private Duration idleLinger = DEFAULT_IDLE_LINGER;

        private ClusterFallback fallback = ClusterFallback.LOCAL;

        private Builder() {
        }

        /** How long permits outlive their last renewal; at least 300 ms (renewal runs three times per lease). */
        public Builder leaseDuration(Duration leaseDuration) {
            this.leaseDuration = leaseDuration;
            return this;
        }

        /**
         * How long leases no call uses stay with the process while no other process waits; 0 gives them back as soon
         * as the last call ends (every call after a pause then takes a lease from Redis).
         */
        public Builder idleLinger(Duration idleLinger) {
            this.idleLinger = idleLinger;
            return this;
        }

        public Builder fallback(ClusterFallback fallback) {
            this.fallback = fallback;
            return this;
        }

        /**
         * Builds the config.
         * @throws IllegalArgumentException naming the invalid field and its value
         */
        public ClusterConfig build() {
            if (this.leaseDuration == null || this.leaseDuration.compareTo(MIN_LEASE_DURATION) < 0) {
                throw new IllegalArgumentException("leaseDuration must be at least " + MIN_LEASE_DURATION.toMillis()
                        + " ms (leases are renewed three times per lease) but was " + this.leaseDuration);
            }
            if (this.idleLinger == null || this.idleLinger.isNegative()) {
                throw new IllegalArgumentException("idleLinger must be 0 or more (0 gives idle leases back at once) but was "
                        + this.idleLinger);
            }
            Objects.requireNonNull(this.fallback, "fallback must not be null; use LOCAL or REJECT");
            return new ClusterConfig(this);
        }
    }
}
