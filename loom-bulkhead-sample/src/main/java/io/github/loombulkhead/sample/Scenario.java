package io.github.loombulkhead.sample;

import java.time.Duration;
import java.util.List;

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
 */
public record Scenario(Scale scale, int requests, int limit, int calleeCapacity, Duration calleeLatency,
        Duration readTimeout, Duration connectTimeout, List<Mode> modes, int adaptiveMaxLimit,
        List<CapacityChange> capacityChanges) {

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
                properties.connectTimeout(), modes, properties.adaptive().maxLimit(), callee.capacityChangeList());
    }

    /** The callee's capacity over a mode. */
    public CapacitySchedule capacitySchedule() {
        return new CapacitySchedule(this.calleeCapacity, this.capacityChanges);
    }

    /**
     * The Little's-law bound of the scenario: requests / capacity × latency, piecewise when the capacity changes.
     * No mode can end every request with success sooner.
     */
    public Duration littlesLawBound() {
        return capacitySchedule().littlesLawBound(this.requests, this.calleeLatency);
    }

    /**
     * Upper bound for one mode: enough for every request to wait its turn, connect and time out, twice over.
     * Bounded modes wait at most this long for a permit, and a mode still running after it is cut short.
     */
    public Duration modeDeadline() {
        int concurrency = Math.min(this.limit, capacitySchedule().minimum());
        long waves = (this.requests + (long) concurrency - 1) / concurrency;
        Duration perWave = this.calleeLatency.plus(this.readTimeout).plus(this.connectTimeout);
        Duration bound = perWave.multipliedBy(2 * waves).plusSeconds(10);
        return (bound.compareTo(Duration.ofMinutes(1)) < 0) ? Duration.ofMinutes(1) : bound;
    }

    private static <T> T orElse(@Nullable T value, T fallback) {
        return (value != null) ? value : fallback;
    }
}
