package io.github.loombulkhead.benchmarks.adaptive;

import java.util.List;

/** Everything one run of the simulation measured, with the settings that describe it. */
public record AdaptiveResults(String callee, String durations, List<SimulationResult> scenarios,
        List<BurstResult> bursts) {
}
