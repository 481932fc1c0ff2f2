package io.github.loombulkhead.sample;

import java.time.Duration;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The comparison's resolved numbers: explicit {@code loom.sample.*} values, else the {@link Scale} preset.
 *
 * @param scale the preset the unset values came from
 * @param requests requests per mode, all submitted at once
 * @param limit maximum concurrent calls of the bounded modes with a static limit
 * @param calleeCapacity worker threads of the callee when a mode starts
 * @param calleeLatency time the callee takes per request
 * @param readTimeout read timeout of the caller's HTTP client
 * @param connectTimeout connect timeout of the caller's HTTP client
 * @param modes modes in the order they run
 * @param adaptiveMaxLimit most concurrent calls an adaptive mode may ever allow
 * @param capacityChanges changes of the callee's worker threads during each mode, in increasing time
 * @param givenModeDeadline the upper bound for one mode that the comparison gave this replica, or {@code null} to
 * compute it
 */
public record Scenario(Scale scale, int requests, int limit, int calleeCapacity, Duration calleeLatency,
        Duration readTimeout, Duration connectTimeout, List<Mode> modes, int adaptiveMaxLimit,
        List<CapacityChange> capacityChanges, @Nullable Duration givenModeDeadline) {

    private static final Log logger = LogFactory.getLog(Scenario.class);

    /** A scenario whose upper bound for one mode is computed from its numbers. */
    public Scenario(Scale scale, int requests, int limit, int calleeCapacity, Duration calleeLatency,
            Duration readTimeout, Duration connectTimeout, List<Mode> modes, int adaptiveMaxLimit,
            List<CapacityChange> capacityChanges) {
        this(scale, requests, limit, calleeCapacity, calleeLatency, readTimeout, connectTimeout, modes,
                adaptiveMaxLimit, capacityChanges, null);
    }

    /** Resolves the scenario from the bound properties. */
    public static Scenario from(SampleProperties properties) {
        Scale scale = properties.scale();
        SampleProperties.Callee callee = properties.callee();
        List<Mode> modes = (properties.modes() != null)
                ? properties.modes().stream().map((id) -> Mode.fromId(id).orElseThrow()).toList()
                : Mode.defaults();
        return new Scenario(scale, orElse(properties.requests(), scale.requests()),
                orElse(properties.limit(), scale.limit()), orElse(callee.capacity(), scale.calleeCapacity()),
                orElse(callee.latency(), scale.calleeLatency()), orElse(properties.readTimeout(), scale.readTimeout()),
                properties.connectTimeout(), modes, properties.adaptive().maxLimit(), callee.capacityChangeList(),
                properties.replica().modeDeadline());
    }

    /**
     * Says which modes this JDK leaves out of a comparison that runs the default modes, and why; called once by the
     * comparison that runs them.
     */
    public static void warnOfModesLeftOut(SampleProperties properties) {
        if (properties.modes() != null) {
            return;
        }
        int jdk = Runtime.version().feature();
        for (Mode mode : Mode.values()) {
            mode.whyNotOn(jdk).ifPresent((reason) -> logger.warn(mode + " is left out of the comparison: " + reason));
        }
    }

    /** The callee's capacity over a mode. */
    public CapacitySchedule capacitySchedule() {
        return new CapacitySchedule(this.calleeCapacity, this.capacityChanges);
    }

    /**
     * The Little's-law bound of the scenario: requests / capacity × latency, piecewise when the capacity changes
     * ({@link CapacitySchedule#littlesLawBound}). No mode can end every request with success sooner.
     */
    public Duration littlesLawBound() {
        return capacitySchedule().littlesLawBound(this.requests, this.calleeLatency);
    }

    /**
     * Upper bound for one mode: enough for every request to wait its turn, connect and time out, twice over, in
     * the slowest of the modes; a replica takes the one the comparison gave it. Bounded modes wait at most this
     * long for a permit, and a mode still running after it is cut short.
     */
    public Duration modeDeadline() {
        if (this.givenModeDeadline != null) {
            return this.givenModeDeadline;
        }
        int concurrency = this.modes.stream().mapToInt(this::concurrency).min().orElse(capacitySchedule().minimum());
        long waves = (this.requests + (long) concurrency - 1) / concurrency;
        Duration perWave = this.calleeLatency.plus(this.readTimeout).plus(this.connectTimeout);
        Duration bound = perWave.multipliedBy(2 * waves).plusSeconds(10);
        return (bound.compareTo(Duration.ofMinutes(1)) < 0) ? Duration.ofMinutes(1) : bound;
    }

    /**
     * How many calls of {@code mode} the deadline counts on at the callee's fewest workers: the static limit, or
     * for an adaptive mode the lower of it and the adaptive max limit (an adaptive limit may stay far below its
     * ceiling), none for {@code virtual-unbounded}; at most those workers.
     */
    private int concurrency(Mode mode) {
        int workers = capacitySchedule().minimum();
        if (!mode.isBounded()) {
            return workers;
        }
        return Math.min(mode.isAdaptive() ? Math.min(this.limit, this.adaptiveMaxLimit) : this.limit, workers);
    }

    private static <T> T orElse(@Nullable T value, T fallback) {
        return (value != null) ? value : fallback;
    }
}
