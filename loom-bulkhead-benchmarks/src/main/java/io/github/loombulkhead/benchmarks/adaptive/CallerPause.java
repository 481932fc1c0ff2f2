package io.github.loombulkhead.benchmarks.adaptive;

import java.time.Duration;
import java.util.List;

/**
 * The caller's process stops for {@code length} at {@code at} (a stop-the-world collection, the process descheduled):
 * the callee goes on working, but the caller handles nothing (no completion, timeout, arrival or limit step) until the
 * pause ends.
 */
record CallerPause(Duration at, Duration length) {

    /** When the pause that holds {@code nanos} ends, or {@code nanos} itself if none of {@code pauses} holds it. */
    static long resumeAt(List<CallerPause> pauses, long nanos) {
        for (CallerPause pause : pauses) {
            long from = pause.at.toNanos();
            long to = from + pause.length.toNanos();
            if (nanos >= from && nanos < to) {
                return to;
            }
        }
        return nanos;
    }

    /** A burst of calls during which the caller pauses once. */
    record Burst(Scenario scenario, CallerPause pause) {
    }
}
