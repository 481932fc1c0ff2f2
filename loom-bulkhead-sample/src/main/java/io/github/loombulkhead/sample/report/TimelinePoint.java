package io.github.loombulkhead.sample.report;

import org.jspecify.annotations.Nullable;

/**
 * One point of a mode's time series.
 *
 * @param elapsedMs time since the mode's first submission
 * @param completed requests that ended so far
 * @param inFlight HTTP exchanges with the callee in progress
 * @param waiting submitted tasks neither ended nor calling: queued, or parked for a permit
 * @param platformThreads live platform threads
 * @param virtualThreads the mode's tasks running on virtual threads
 * @param heapUsedBytes heap used
 * @param threadStackReservedDeltaBytes reserved thread-stack memory since the mode's baseline (every fifth point,
 * when native memory tracking is on)
 * @param limit calls the mode lets run at once: the algorithm's current limit in the adaptive modes, the static
 * limit in the other bounded ones; {@code null} for a mode without a limit
 */
public record TimelinePoint(long elapsedMs, int completed, int inFlight, int waiting, int platformThreads,
        int virtualThreads, long heapUsedBytes, @Nullable Long threadStackReservedDeltaBytes,
        @Nullable Integer limit) {
}
