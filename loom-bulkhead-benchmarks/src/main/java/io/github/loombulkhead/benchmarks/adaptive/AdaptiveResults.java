package io.github.loombulkhead.benchmarks.adaptive;

import java.util.List;

/**
 * Everything one run of the simulation measured, with the settings that describe it; {@code calleeRefuses}: the callee
 * refuses calls when it is full, so a failed call was refused or timed out.
 */
public record AdaptiveResults(String callee, String durations, List<SimulationResult> scenarios,
        List<BurstResult> bursts, boolean calleeRefuses) {

    /** How the tables head the column of failed calls. */
    String failedColumn() {
        return this.calleeRefuses ? "timed out or refused" : "timed out";
    }
}
