package io.github.loombulkhead.sample;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The comparison's resolved numbers: explicit {@code loom.sample.*} values, else the {@link Scale} preset.
 *
 * @param scale the preset the unset values came from
 * @param requests requests per mode, all submitted at once
 * @param limit maximum concurrent calls of the bounded modes
 * @param calleeCapacity worker threads of the callee
 * @param calleeLatency time the callee takes per request
 * @param readTimeout read timeout of the caller's HTTP client
 * @param connectTimeout connect timeout of the caller's HTTP client
 * @param modes modes in the order they run
 */
public record Scenario(Scale scale, int requests, int limit, int calleeCapacity, Duration calleeLatency,
        Duration readTimeout, Duration connectTimeout, List<Mode> modes) {

    /** Resolves the scenario from the bound properties. */
    public static Scenario from(SampleProperties properties) {
        Scale scale = properties.scale();
        SampleProperties.Callee callee = properties.callee();
        List<Mode> modes = (properties.modes() != null)
                ? properties.modes().stream().map((id) -> Mode.fromId(id).orElseThrow()).toList()
                : List.of(Mode.values());
        return new Scenario(scale, orElse(properties.requests(), scale.requests()),
                orElse(properties.limit(), scale.limit()), orElse(callee.capacity(), scale.calleeCapacity()),
                orElse(callee.latency(), scale.calleeLatency()), orElse(properties.readTimeout(), scale.readTimeout()),
                properties.connectTimeout(), modes);
    }

    /**
     * Upper bound for one mode: enough for every request to wait its turn, connect and time out, twice over.
     * Bounded modes wait at most this long for a permit, and a mode still running after it is cut short.
     */
    public Duration modeDeadline() {
        long waves = (this.requests + (long) Math.min(this.limit, this.calleeCapacity) - 1)
                / Math.min(this.limit, this.calleeCapacity);
        Duration perWave = this.calleeLatency.plus(this.readTimeout).plus(this.connectTimeout);
        Duration bound = perWave.multipliedBy(2 * waves).plusSeconds(10);
        return (bound.compareTo(Duration.ofMinutes(1)) < 0) ? Duration.ofMinutes(1) : bound;
    }

    private static <T> T orElse(@Nullable T value, T fallback) {
        return (value != null) ? value : fallback;
    }
}
