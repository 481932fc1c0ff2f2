package io.github.loombulkhead.sample.report;

import java.util.Locale;

/** The scenario in one sentence, and what the measures mean. */
final class ScenarioText {

    static final String NOTES = """
            How to read it (all figures are for the caller JVM; the callee runs in its own JVM):
            - duration: from the first submission until every request ended. p50 / p99: time from the mode's \
            start (all requests are fired at once) to each request's outcome, succeeded or failed.
            - Little's-law bound: requests / callee capacity × latency (piecewise when the capacity changes \
            during the mode, a drop counted one latency late, as busy workers finish their request first): the \
            shortest time in which every request can be answered. bound / duration: how \
            close a mode came to it (100 % is as fast as the callee allows; above 100 % only when requests \
            failed early).
            - limit (chart): calls the mode lets run at once, sampled with the other measures: the algorithm's \
            current limit in the adaptive modes (loom-bulkhead-adaptive, netflix-*), never above the adaptive \
            max limit, and the static limit in the other bounded modes; the callee's capacity is drawn beside \
            it.
            - platform threads (peak): the most live platform threads during the mode, and the change from just \
            before it. virtual threads (peak): the most tasks running on virtual threads at once, parked ones \
            included.
            - heap used (peak): the highest sampled heap use, garbage included, so it depends on when GCs ran. \
            heap held by tasks: heap in use after a full GC taken once the first request has ended (every task \
            has then had a whole callee latency to start and wait), minus the same right before the mode: what \
            the queued, parked and running tasks hold. That GC's pause is part of the duration. Not taken for \
            virtual-unbounded, where every call is on the wire and a pause would let timed-out calls read late \
            answers.
            - thread stacks reserved: change of the "Thread" stack reservation that native memory tracking \
            reports (like jcmd VM.native_memory summary.diff), the highest seen during the mode.
            - GC: collections during the mode and their time, the measuring full GC excluded.
            - 1 MB = 1,048,576 bytes.""";

    private ScenarioText() {
    }

    static String describe(ScenarioReport s) {
        String replicas = (s.replicas() != null) ? " in all, shared by " + s.replicas() + " replicas (caller JVMs)" : "";
        String limitScope = (s.replicas() != null) ? " per replica, loom-bulkhead-cluster in all of them" : "";
        return Formats.count(s.requests()) + " requests at once" + replicas + ", limit " + Formats.count(s.limit())
                + limitScope
                + " (adaptive modes at most " + Formats.count(s.adaptiveMaxLimit())
                + ((s.adaptiveAlgorithm() != null) ? ", loom-bulkhead-adaptive with " + s.adaptiveAlgorithm() : "")
                + "); callee: "
                + Formats.count(s.calleeCapacity()) + " worker threads" + Formats.capacityChanges(s.capacityChanges())
                + ", " + Formats.millis(s.calleeLatencyMs()) + " per request (Little's-law bound "
                + Formats.seconds(s.littlesLawBoundMs()) + "); read timeout " + Formats.millis(s.readTimeoutMs())
                + ", connect timeout " + Formats.millis(s.connectTimeoutMs()) + "; Java " + s.javaVersion() + " (" + s.jvm() + "), "
                + s.cpus() + " CPUs, max heap " + Formats.megabytes(s.maxHeapBytes()) + ", " + s.os() + "; scale "
                + s.scale() + "; started " + s.startedAt()
                + ((s.loadAverage() >= 0) ? String.format(Locale.US, " with a load average of %.2f", s.loadAverage()) : "")
                + ".";
    }
}
